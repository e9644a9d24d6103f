import { getClusterActivityTop } from "@dbmon/contract";
import { implement } from "../../http/operations.js";

export const getClusterActivityTopHandler = implement(getClusterActivityTop, async (c) => {
  const target = { kind: "cluster", id: c.req.valid("param").id } as const;
  return c.json(await c.get("services").activity.topOf(c.get("access"), target, c.req.valid("query")), 200);
});
