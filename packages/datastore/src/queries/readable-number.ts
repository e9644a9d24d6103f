/**
 * SQL for a measured value as people read it: two decimals, three significant digits below 1 (a ratio
 * of 99.16666666666667 % reads 99.17, 0.000123456 s reads 0.000123). One rule for every place a person
 * reads a stored value: the timeline's details and the alerter's notifications.
 * `column` is an SQL expression of ours, never input.
 */
export const readableNumberSql = (column: string): string =>
  `case when ${column} is null or ${column} = 0 or abs(${column}) >= 1
    then round(${column}::numeric, 2)::float8
    else round(${column}::numeric, 2 - floor(log(abs(${column}::numeric)))::int)::float8 end`;
