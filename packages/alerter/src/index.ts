export { type AlertOperator, alertOperators, isAlertOperator, violates } from "./operators.js";
