import { listLlmModels } from "@dbmon/contract";
import { clientAddress } from "../../auth/client-address.js";
import { implement } from "../../http/operations.js";

export const listLlmModelsHandler = implement(listLlmModels, async (c) => {
  const { auth, llmProxy } = c.get("services");
  const models = await llmProxy.models(
    c.req.valid("query").provider,
    c.get("access"),
    clientAddress(c, auth.isTrustedProxy),
  );
  return c.json(models, 200);
});
