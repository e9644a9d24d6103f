/** What the advisor reads of an EXPLAIN (FORMAT JSON) result: the total cost and the indexes used. */
export interface PlanSummary {
  cost: number;
  indexes: Set<string>;
}

type Node = Record<string, unknown>;

/** The plan of `EXPLAIN (FORMAT JSON)`'s one row, or undefined when it is not one. */
export function readPlan(json: string | null | undefined): PlanSummary | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(json ?? "");
  } catch {
    return undefined;
  }
  const plan = (Array.isArray(parsed) ? (parsed[0] as Node | undefined)?.Plan : undefined) as
    | Node
    | undefined;
  const cost = plan?.["Total Cost"];
  if (!plan || typeof cost !== "number") {
    return undefined;
  }
  const indexes = new Set<string>();
  const pending: Node[] = [plan];
  while (pending.length > 0) {
    const node = pending.pop() as Node;
    if (typeof node["Index Name"] === "string") {
      indexes.add(node["Index Name"]);
    }
    pending.push(...((node.Plans as Node[] | undefined) ?? []));
  }
  return { cost, indexes };
}
