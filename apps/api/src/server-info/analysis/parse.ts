/** Separators a model puts between a database's name and its description. */
const SEPARATOR = /:|\s[-–—]\s/g;
/** List markers and headings in front of a line: `-`, `*`, `•`, `+`, `1.`, `2)`, `(3)`, `##`. */
const LINE_PREFIX = /^(?:[-*•+]\s+|\(?\d+[.)]\s+|#+\s+)+/;
/** Quotes and emphasis around a name. */
const NAME_WRAPPING = /^["'“”‘’*_]+|["'“”‘’*_]+$/g;
/** What a model may repeat after the name from the prompt: `sales (size: 1 MB; extensions: none)`. */
const TRAILING_DETAILS = /\s*\([^()]*\)$/;

/**
 * Reads the model's answer into database name → description, keeping only lines about a database
 * that was asked about and that have a description. Tolerates list markers, markdown emphasis and
 * code spans, table rows, other dash separators and prose around the answer; the first line about a
 * database wins.
 */
export function parseAnalysis(answer: string, names: readonly string[]): Record<string, string> {
  const known = new Set(names);
  const byLowerCase = uniqueLowerCaseNames(names);
  const found = new Map<string, string>();
  for (const line of answer.split(/\r?\n/)) {
    const entry = parseLine(line, known, byLowerCase);
    if (entry && !found.has(entry.name)) {
      found.set(entry.name, entry.description);
    }
  }
  // In the order the databases were given.
  return Object.fromEntries(
    names.flatMap((name) => {
      const description = found.get(name);
      return description === undefined ? [] : [[name, description]];
    }),
  );
}

function parseLine(
  line: string,
  known: Set<string>,
  byLowerCase: Map<string, string>,
): { name: string; description: string } | undefined {
  const text = line.replace(/\*\*|`/g, "").trim();
  if (text.startsWith("|")) {
    return parseTableRow(text, known, byLowerCase);
  }
  const unprefixed = text.replace(LINE_PREFIX, "");
  // Try every separator in turn: a name may itself contain a colon or a dash.
  for (const match of unprefixed.matchAll(SEPARATOR)) {
    const name = resolveName(unprefixed.slice(0, match.index), known, byLowerCase);
    if (name !== undefined) {
      const description = cleanDescription(unprefixed.slice(match.index + match[0].length));
      return description ? { name, description } : undefined;
    }
  }
  return undefined;
}

/** `| name | description |`, the closing bar optional. */
function parseTableRow(
  row: string,
  known: Set<string>,
  byLowerCase: Map<string, string>,
): { name: string; description: string } | undefined {
  const cells = row
    .replace(/\|\s*$/, "")
    .split("|")
    .slice(1);
  const name = cells[0] === undefined ? undefined : resolveName(cells[0], known, byLowerCase);
  const description = cleanDescription(cells.slice(1).join("|"));
  return name !== undefined && description ? { name, description } : undefined;
}

function resolveName(
  candidate: string,
  known: Set<string>,
  byLowerCase: Map<string, string>,
): string | undefined {
  const trimmed = candidate.trim();
  const unwrapped = trimmed.replace(NAME_WRAPPING, "").trim();
  for (const name of [
    trimmed,
    unwrapped,
    unwrapped.replace(TRAILING_DETAILS, "").replace(NAME_WRAPPING, ""),
  ]) {
    if (known.has(name)) {
      return name;
    }
    const caseless = byLowerCase.get(name.toLowerCase());
    if (caseless !== undefined) {
      return caseless;
    }
  }
  return undefined;
}

function cleanDescription(text: string): string {
  return text
    .replace(/\s+/g, " ")
    .trim()
    .replace(/^["“]+|["”]+$/g, "")
    .trim();
}

/** Names that no other database shares when case is ignored, by their lower-case form. */
function uniqueLowerCaseNames(names: readonly string[]): Map<string, string> {
  const counts = new Map<string, number>();
  for (const name of names) {
    counts.set(name.toLowerCase(), (counts.get(name.toLowerCase()) ?? 0) + 1);
  }
  return new Map(
    names.filter((name) => counts.get(name.toLowerCase()) === 1).map((name) => [name.toLowerCase(), name]),
  );
}
