import { inspect } from "node:util";

const REDACTED = "[redacted]";

/**
 * A credential that prints as `[redacted]` however it is logged, serialised or interpolated; only
 * `reveal()` gives the value, and only the code that sends it to the provider calls it.
 */
export class Secret {
  readonly #value: string;

  constructor(value: string) {
    this.#value = value;
  }

  reveal(): string {
    return this.#value;
  }

  /** Replaces every occurrence of the secret in a text that may end up in a log or an error. */
  scrub(text: string): string {
    return text.split(this.#value).join(REDACTED);
  }

  toString(): string {
    return REDACTED;
  }

  toJSON(): string {
    return REDACTED;
  }

  [inspect.custom](): string {
    return REDACTED;
  }
}
