import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../services.js";

export type App = OpenAPIHono<AppEnv>;
