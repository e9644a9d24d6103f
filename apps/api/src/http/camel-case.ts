// Request bodies are snake_case on the wire; services take camelCase fields. Bodies reach this
// only after their schema has validated them, so their keys are the schema's (a few, short).

type CamelCase<S extends string> = S extends `${infer Head}_${infer Tail}`
  ? `${Head}${Capitalize<CamelCase<Tail>>}`
  : S;

/** The type of a snake_case object with its keys in camelCase. */
export type CamelCased<T> = { [K in keyof T as K extends string ? CamelCase<K> : K]: T[K] };

/** A validated body with its keys in camelCase (values untouched). */
export function camelCased<T extends object>(body: T): CamelCased<T> {
  return Object.fromEntries(
    Object.entries(body).map(([key, value]) => [
      key.replace(/_([a-z0-9])/g, (_, next: string) => next.toUpperCase()),
      value,
    ]),
  ) as CamelCased<T>;
}
