// Prints the closing line CI reads, "N passed, N failed[, N skipped]", from vitest's JSON report.
import { readFileSync } from "node:fs";

const file = process.argv[2] ?? "test-results/vitest.json";
let report;
try {
  report = JSON.parse(readFileSync(file, "utf8"));
} catch {
  console.log("0 passed, 1 failed");
  console.error(`no test report at ${file}: the test run did not finish`);
  process.exit(1);
}
// A file can fail outside its tests (a failing beforeAll skips them; an unhandled error fails the
// run): such a file counts as one failure, and a failed run with none counted as one more.
const failedSuites = report.testResults.filter(
  (suite) =>
    suite.status === "failed" && !suite.assertionResults.some((assertion) => assertion.status === "failed"),
).length;
let failed = report.numFailedTests + failedSuites;
if (failed === 0 && report.success === false) {
  failed = 1;
}
const skipped = report.numPendingTests + report.numTodoTests;
console.log(`${report.numPassedTests} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ""}`);
process.exit(failed > 0 || report.numPassedTests === 0 ? 1 : 0);
