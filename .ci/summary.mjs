// Prints the closing line CI reads, "N passed, N failed[, N skipped]", from vitest's JSON reports.
import { readFileSync } from "node:fs";

// Several reports (one per run of the suite) are added up; a missing one counts as a failure.
const files = process.argv.length > 2 ? process.argv.slice(2) : ["test-results/vitest.json"];
let passed = 0;
let failed = 0;
let skipped = 0;
for (const file of files) {
  let report;
  try {
    report = JSON.parse(readFileSync(file, "utf8"));
  } catch {
    console.error(`no test report at ${file}: the test run did not finish`);
    failed += 1;
    continue;
  }
  // A file can fail outside its tests (a failing beforeAll skips them; an unhandled error fails the
  // run): such a file counts as one failure, and a failed run with none counted as one more.
  const failedSuites = report.testResults.filter(
    (suite) =>
      suite.status === "failed" && !suite.assertionResults.some((assertion) => assertion.status === "failed"),
  ).length;
  let failedHere = report.numFailedTests + failedSuites;
  if (failedHere === 0 && report.success === false) {
    failedHere = 1;
  }
  if (files.length > 1) {
    console.error(`${file}: ${report.numPassedTests} passed, ${failedHere} failed`);
  }
  passed += report.numPassedTests;
  failed += failedHere;
  skipped += report.numPendingTests + report.numTodoTests;
}
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ""}`);
process.exit(failed > 0 || passed === 0 ? 1 : 0);
