/** Comparison operators of alert rules and overrides, as stored and sent on the wire. */
export const alertOperators = [">", ">=", "<", "<=", "==", "!="] as const;
export type AlertOperator = (typeof alertOperators)[number];

export function isAlertOperator(value: string): value is AlertOperator {
  return (alertOperators as readonly string[]).includes(value);
}

/** Whether `value` violates a rule whose condition is `value <operator> threshold`. */
export function violates(value: number, operator: AlertOperator, threshold: number): boolean {
  switch (operator) {
    case ">":
      return value > threshold;
    case ">=":
      return value >= threshold;
    case "<":
      return value < threshold;
    case "<=":
      return value <= threshold;
    case "==":
      return value === threshold;
    case "!=":
      return value !== threshold;
  }
}
