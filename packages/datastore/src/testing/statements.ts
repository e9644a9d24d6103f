import postgres from "postgres";

/**
 * Runs statements one after another on a session of their own (a test server's database, say) and
 * answers the rows of the last one.
 */
export async function execStatements(url: string, ...statements: string[]): Promise<postgres.Row[]> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    let rows: postgres.Row[] = [];
    for (const statement of statements) {
      rows = await sql.unsafe(statement);
    }
    return rows;
  } finally {
    await sql.end();
  }
}
