import { getOverviewHandler } from "./get-overview.js";
import { streamOverviewHandler } from "./stream-overview.js";

export const overviewHandlers = [getOverviewHandler, streamOverviewHandler];
