import { buildOpenApiDocument, type OpenApiDocument, openApiDocument } from "@dbmon/contract";
import type { App } from "../../http/app-type.js";

export function registerOpenApiDocument(app: App): void {
  // Built once per app: generating the document is costly and it never changes while running.
  let document: OpenApiDocument | undefined;
  app.openapi(openApiDocument, (c) => {
    document ??= buildOpenApiDocument();
    return c.json(document as never, 200);
  });
}
