import { getOverview } from "./get-overview.js";
import { streamOverview } from "./stream-overview.js";

export * from "./get-overview.js";
export * from "./schemas.js";
export * from "./stream-overview.js";

export const overviewOperations = [getOverview, streamOverview] as const;
