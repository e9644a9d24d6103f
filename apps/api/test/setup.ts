import { afterAll, expect } from "vitest";
import { undeclaredStatuses } from "./undeclared-statuses.js";

afterAll(() => {
  const seen = [
    ...new Set(
      undeclaredStatuses.map(
        (report) => `${report.method} ${report.path} (${report.operationId}): ${report.status}`,
      ),
    ),
  ];
  expect(seen, "statuses answered that the operations' contracts do not declare").toEqual([]);
});
