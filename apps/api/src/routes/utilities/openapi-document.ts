import { buildOpenApiDocument, type OpenApiDocument, openApiDocument } from "@dbmon/contract";
import { implement } from "../../http/operations.js";

/** Built once per process: generating the document is costly and it never changes while running. */
let document: OpenApiDocument | undefined;

export const openApiDocumentHandler = implement(openApiDocument, (c) => {
  document ??= buildOpenApiDocument();
  return c.json(document as never, 200);
});
