/** A parsed PostgreSQL array: elements, NULLs and, for a multidimensional array, nested arrays. */
export type ArrayValue<T> = Array<T | null | ArrayValue<T>>;

export class MalformedArrayError extends Error {
  override name = "MalformedArrayError";

  constructor(at: number) {
    super(`malformed array text at character ${at}`);
  }
}

const BACKSLASH = "\\";
const QUOTE = '"';

/**
 * Parses the text form of a PostgreSQL array (`{a,"b c",NULL,{1,2}}`, with an optional `[1:2]=`
 * bounds prefix), turning each element with `element`. It reads every character once and throws on
 * anything malformed, for the text comes from servers dbmon monitors, which it does not trust.
 * Only `,` is supported as delimiter (every built-in type but box).
 */
export function parseArrayLiteral<T>(text: string, element: (raw: string) => T): ArrayValue<T> {
  let at = 0;
  if (text.startsWith("[")) {
    at = text.indexOf("=") + 1;
  }
  if (text[at] !== "{") {
    throw new MalformedArrayError(at);
  }
  at += 1;
  const root: ArrayValue<T> = [];
  const outer: ArrayValue<T>[] = [];
  let current = root;
  // What the last token was decides what may follow: an element or `{` after `{` or `,`; a `,`
  // or `}` after an element; `}` right after `{` (an empty array).
  let last: "open" | "comma" | "element" = "open";
  for (;;) {
    const char = text[at];
    if (char === undefined) {
      throw new MalformedArrayError(at);
    }
    const elementNext = last !== "element";
    if (char === "}" && last !== "comma") {
      at += 1;
      last = "element";
      const parent = outer.pop();
      if (parent === undefined) {
        break;
      }
      current = parent;
    } else if (char === "," && last === "element") {
      at += 1;
      last = "comma";
    } else if (char === "{" && elementNext) {
      const child: ArrayValue<T> = [];
      current.push(child);
      outer.push(current);
      current = child;
      at += 1;
      last = "open";
    } else if (char === QUOTE && elementNext) {
      const [value, next] = readElement(text, at + 1, true);
      current.push(element(value));
      at = next;
      last = "element";
    } else if (char !== "}" && char !== "," && char !== "{" && elementNext) {
      const [value, next] = readElement(text, at, false);
      current.push(value.length === 4 && value.toUpperCase() === "NULL" ? null : element(value));
      at = next;
      last = "element";
    } else {
      throw new MalformedArrayError(at);
    }
  }
  if (at !== text.length) {
    throw new MalformedArrayError(at);
  }
  return root;
}

/**
 * One element from `start`: up to the closing quote (consumed) when quoted, else up to the next
 * `,` or `}` (left in place; `{` or `"` there is malformed). A backslash takes the next character
 * as it is.
 */
function readElement(text: string, start: number, quoted: boolean): [string, number] {
  let value = "";
  let from = start;
  let at = start;
  for (;;) {
    const char = text[at];
    if (char === undefined) {
      throw new MalformedArrayError(at);
    }
    if (char === BACKSLASH) {
      if (at + 1 >= text.length) {
        throw new MalformedArrayError(at);
      }
      value += text.slice(from, at) + text[at + 1];
      at += 2;
      from = at;
    } else if (quoted ? char === QUOTE : char === "," || char === "}" || char === "{" || char === QUOTE) {
      if (!quoted && (char === "{" || char === QUOTE)) {
        throw new MalformedArrayError(at);
      }
      value += text.slice(from, at);
      return [value, quoted ? at + 1 : at];
    } else {
      at += 1;
    }
  }
}
