import { loadModule } from "libpg-query";
import { classifySql, type Statement } from "../src/sql/classify.js";

/** The statements of a text as the SQL core gets them, parsed in this thread (tests only). */
export async function parseSql(sql: string): Promise<Statement[]> {
  await loadModule();
  const classification = classifySql(sql);
  if (!classification.ok) {
    throw new Error(`syntax error: ${classification.syntaxError.message}`);
  }
  return classification.statements;
}
