import { listTimelineEventsHandler } from "./list-timeline-events.js";

export const timelineHandlers = [listTimelineEventsHandler];
