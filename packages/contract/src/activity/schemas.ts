import { z } from "@hono/zod-openapi";
import { message, typedText } from "../common.js";
import { positiveLimitQuery } from "../metrics/schemas.js";
import { rfc3339Query } from "../timeline/schemas.js";

/** What database load can be grouped by; `server` tells a cluster's or group's servers apart. */
export const ACTIVITY_DIMENSIONS = [
  "wait_event_type",
  "wait_event",
  "query",
  "database",
  "user",
  "application",
  "client",
  "server",
] as const;

export type ActivityDimensionName = (typeof ACTIVITY_DIMENSIONS)[number];

/** The longest window one request may ask for: the per-minute aggregates of 31 days. */
export const MAX_ACTIVITY_WINDOW_DAYS = 31;
/** The most buckets one load answer holds. */
export const MAX_ACTIVITY_BUCKETS = 1000;
/** The most values that get a series of their own in a load answer. */
export const MAX_ACTIVITY_SERIES = 25;
/** The most sessions one answer holds (sessions at a moment). */
export const MAX_ACTIVITY_SESSIONS = 1000;
/** The longest query text an answer carries (the collector may keep more). */
export const MAX_ACTIVITY_QUERY_LENGTH = 2048;

/** Who may read activity: everything the path names that the caller cannot see is left out or not found. */
export const clusterActivityAccess = {
  note: "A cluster the caller cannot see is not found; its servers the caller cannot see are left out.",
} as const;
export const groupActivityAccess = {
  note: "A group the caller cannot see is not found; its servers the caller cannot see are left out.",
} as const;

/** What each kind of activity operation answers, the same for a connection, a cluster and a group. */
export const activityDescriptions = {
  load: "Average active sessions per bucket: the sessions sampled in it (active ones, and those waiting on a lock or idle in a transaction) over the sampling ticks that succeeded in it, so a gap in sampling does not dilute it; `vcpus` beside it is the line above which load is waiting for CPU. From the per-minute aggregates of active session history.",
  top: "Each value's average active sessions over the window, its share of the load and its split by wait event type; queries carry their text from pg_stat_statements (or the sampled sessions).",
  sessions:
    "The raw sample nearest the moment (within 5 minutes, while raw samples are kept) and the lock tree built from each session's blocking pids.",
} as const;

const dimensionQuery = (fallback: ActivityDimensionName) =>
  z
    .enum(ACTIVITY_DIMENSIONS, message(`Invalid dimension: must be one of ${ACTIVITY_DIMENSIONS.join(", ")}`))
    .default(fallback)
    .openapi({ description: `What to group load by (default ${fallback})` });

const windowQuery = {
  start_time: rfc3339Query("start_time", "Start of the window (RFC 3339); default an hour before end_time"),
  end_time: rfc3339Query("end_time", "End of the window (RFC 3339); default now"),
};

const invalidBucket = message("Invalid bucket_seconds: must be a multiple of 60 between 60 and 86400");

const invalidSeries = message(`Invalid series: must be between 1 and ${MAX_ACTIVITY_SERIES}`);

export const ActivityLoadQuerySchema = z.object({
  ...windowQuery,
  dimension: dimensionQuery("wait_event_type"),
  bucket_seconds: typedText<number, z.ZodType<number>>(
    z
      .string()
      .regex(/^\d{1,6}$/, invalidBucket)
      .transform(Number)
      .refine((value) => value >= 60 && value <= 86_400 && value % 60 === 0, invalidBucket),
  )
    .optional()
    .openapi({
      type: "integer",
      description: `Bucket width; default the narrowest of 1, 2, 5, 10, 15, 30 minutes, 1, 2, 3, 6, 12 hours or a day giving at most 120 buckets. At most ${MAX_ACTIVITY_BUCKETS} buckets.`,
    }),
  series: typedText<number, z.ZodType<number>>(
    z
      .string()
      .regex(/^\d{1,2}$/, invalidSeries)
      .transform(Number)
      .refine((value) => value >= 1 && value <= MAX_ACTIVITY_SERIES, invalidSeries),
  )
    .optional()
    .openapi({
      type: "integer",
      description: `Values with a series of their own, most load first (default 10, at most ${MAX_ACTIVITY_SERIES}); the rest are summed in \`other\``,
    }),
});

export const ActivityTopQuerySchema = z.object({
  ...windowQuery,
  dimension: dimensionQuery("query"),
  limit: positiveLimitQuery("Values to answer, most load first (default 10, at most 100)"),
});

export const ActivitySessionsQuerySchema = z.object({
  at: rfc3339Query(
    "at",
    "The moment (RFC 3339); default now. The sample nearest it within 5 minutes is answered",
  ),
  limit: positiveLimitQuery(
    `Sessions to answer, over all servers (default 200, at most ${MAX_ACTIVITY_SESSIONS}); sessions in a lock tree come first`,
  ),
});

const ActivityServerSchema = z
  .object({
    connection_id: z.number().int(),
    name: z.string(),
    vcpus: z.number().int().nullable().openapi({
      description: "Logical processors of its host (host probe pg_sys_cpu_info); null when not collected",
    }),
  })
  .openapi("ActivityServer");

export const ActivityScopeSchema = z
  .object({
    kind: z.enum(["connection", "cluster", "group"]),
    id: z.number().int(),
    name: z.string(),
    servers: z
      .array(ActivityServerSchema)
      .openapi({ description: "The servers counted (those the caller can see)" }),
  })
  .openapi("ActivityScope");

/** What identifies one value of a dimension, and how a person reads it. */
const dimensionValueFields = {
  value: z.string().nullable().openapi({
    description:
      'The value grouped by: a wait event type ("CPU" for sessions not waiting), a wait event, a query id, a database, user, application name, client address or connection id; null when the sessions had none',
  }),
  label: z.string().openapi({
    description:
      "The value for people: the wait event with its type, the start of a query's text, a server's name",
  }),
  wait_event_type: z
    .string()
    .optional()
    .openapi({ description: "The type of a wait event (dimension wait_event)" }),
  query: z.string().nullable().optional().openapi({
    description:
      "The query's text, from pg_stat_statements or the sampled sessions (dimension query); null when unknown",
  }),
};

const loadPoints = z.array(z.number().nullable()).openapi({
  description: "Average active sessions per bucket, in the order of `times`; null where nothing was sampled",
});

const vcpusField = z.number().int().nullable().openapi({
  description:
    "Logical processors of the servers' hosts together (those known): load above it means sessions waiting for CPU. Null when no host's count was collected",
});

export const ActivityLoadSchema = z
  .object({
    scope: ActivityScopeSchema,
    start_time: z.string().openapi({ description: "Start of the first bucket" }),
    end_time: z.string().openapi({ description: "End of the last bucket" }),
    bucket_seconds: z.number().int(),
    dimension: z.enum(ACTIVITY_DIMENSIONS),
    vcpus: vcpusField,
    average_load: z
      .number()
      .nullable()
      .openapi({ description: "Average active sessions over the window; null when nothing was sampled" }),
    times: z.array(z.string()).openapi({ description: "Start of each bucket" }),
    total: loadPoints,
    series: z.array(
      z
        .object({
          ...dimensionValueFields,
          average_load: z.number().openapi({ description: "Average active sessions over the window" }),
          load: loadPoints,
        })
        .openapi("ActivityLoadSeries"),
    ),
    other: z
      .object({ average_load: z.number(), load: loadPoints })
      .nullable()
      .openapi({ description: "The values beyond `series`, summed; null when there are none" }),
  })
  .openapi("ActivityLoad");

export const ActivityTopSchema = z
  .object({
    scope: ActivityScopeSchema,
    start_time: z
      .string()
      .openapi({ description: "Start of the window's first minute (the aggregates are per minute)" }),
    end_time: z.string().openapi({ description: "End of the window's last minute" }),
    dimension: z.enum(ACTIVITY_DIMENSIONS),
    vcpus: vcpusField,
    average_load: z
      .number()
      .nullable()
      .openapi({ description: "Average active sessions over the window, every value together" }),
    items: z.array(
      z
        .object({
          ...dimensionValueFields,
          load: z.number().openapi({ description: "Average active sessions over the window" }),
          load_percent: z.number().openapi({ description: "Share of the window's load, percent" }),
          waits: z
            .array(z.object({ wait_event_type: z.string(), load: z.number() }))
            .optional()
            .openapi({
              description: "The value's load by wait event type, most first (not for wait dimensions)",
            }),
        })
        .openapi("ActivityTopItem"),
    ),
  })
  .openapi("ActivityTop");

const sessionFields = {
  pid: z.number().int(),
  database_name: z.string().nullable(),
  user_name: z.string().nullable(),
  application_name: z.string(),
  state: z.string().nullable(),
  wait_event_type: z.string().nullable().openapi({ description: '"CPU" for a session not waiting' }),
  wait_event: z.string().nullable(),
  query: z.string().nullable(),
  xact_start: z.string().nullable(),
  query_start: z.string().nullable(),
  blocking_pids: z
    .array(z.number().int())
    .openapi({ description: "pg_blocking_pids(): the sessions it waits for" }),
};

export const ActivitySessionSchema = z
  .object({
    ...sessionFields,
    client_addr: z.string().nullable(),
    backend_type: z.string(),
    query_id: z.string().nullable(),
    state_change: z.string().nullable(),
  })
  .openapi("ActivitySession");

export const LockTreeEntrySchema = z
  .object({
    ...sessionFields,
    depth: z
      .number()
      .int()
      .openapi({ description: "0 for a session blocking others while not blocked by a sampled one" }),
    blocked_count: z.number().int().openapi({ description: "Sessions waiting for it, directly or not" }),
  })
  .openapi("LockTreeEntry");

export const ActivitySessionsSchema = z
  .object({
    scope: ActivityScopeSchema,
    at: z.string().openapi({ description: "The moment asked for" }),
    servers: z.array(
      z
        .object({
          connection_id: z.number().int(),
          name: z.string(),
          sampled_at: z
            .string()
            .nullable()
            .openapi({ description: "The sample answered: the nearest within 5 minutes; null when none" }),
          session_count: z
            .number()
            .int()
            .openapi({ description: "Sessions in the sample (the answer may hold fewer)" }),
          sessions: z.array(ActivitySessionSchema),
          lock_tree: z.array(LockTreeEntrySchema).openapi({
            description:
              "Who blocks whom, depth first: each blocked session follows the session it waits for, one level deeper (under each, when it waits for several)",
          }),
        })
        .openapi("ActivityServerSessions"),
    ),
    truncated: z.boolean().openapi({ description: "Whether sessions were left out (limit)" }),
  })
  .openapi("ActivitySessions");
