declare module "vitest" {
  export interface ProvidedContext {
    /** URL of the PostgreSQL server the suite uses (its `postgres` database). */
    testServerUrl: string;
    /** Name of the migrated template database that each test file clones. */
    testTemplate: string;
  }
}

export {};
