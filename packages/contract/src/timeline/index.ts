import { listTimelineEvents } from "./list-timeline-events.js";

export * from "./list-timeline-events.js";
export * from "./schemas.js";

export const timelineOperations = [listTimelineEvents] as const;
