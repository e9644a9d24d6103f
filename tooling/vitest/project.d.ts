import type { UserWorkspaceConfig } from "vitest/config";

export declare function dbmonProject(name: string): UserWorkspaceConfig;
