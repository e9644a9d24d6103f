import { getClusterActivitySessions } from "@dbmon/contract";
import { implement } from "../../http/operations.js";

export const getClusterActivitySessionsHandler = implement(getClusterActivitySessions, async (c) => {
  const target = { kind: "cluster", id: c.req.valid("param").id } as const;
  return c.json(
    await c.get("services").activity.sessionsAt(c.get("access"), target, c.req.valid("query")),
    200,
  );
});
