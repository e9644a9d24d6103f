import type { UndeclaredStatus } from "../src/http/operations.js";

/**
 * Answers of this test file's apps whose status their operation does not declare; the setup file
 * fails the file when any were seen, so the whole suite checks the contract's error statuses.
 */
export const undeclaredStatuses: UndeclaredStatus[] = [];
