/** An identifier, quoted: any name (mixed case, spaces, quotes) reads back as itself. */
export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** A string literal (the execution core's sessions keep standard_conforming_strings on). */
export function sqlLiteral(value: string): string {
  return `'${value.replace(/'/g, "''")}'`;
}
