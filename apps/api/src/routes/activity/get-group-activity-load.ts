import { getGroupActivityLoad } from "@dbmon/contract";
import { implement } from "../../http/operations.js";

export const getGroupActivityLoadHandler = implement(getGroupActivityLoad, async (c) => {
  const target = { kind: "group", id: c.req.valid("param").id } as const;
  return c.json(await c.get("services").activity.loadOf(c.get("access"), target, c.req.valid("query")), 200);
});
