import { z } from "@hono/zod-openapi";
import { idParam, message, TimestampSchema } from "../common.js";

export const ConnectionPathSchema = z.object({ id: idParam("Invalid connection ID") });

export const SslModeSchema = z
  .enum(["disable", "allow", "prefer", "require", "verify-ca", "verify-full"], message("Invalid ssl_mode"))
  .openapi("SslMode");

export const ConnectionSchema = z
  .object({
    id: z.number().int(),
    name: z.string(),
    description: z.string(),
    host: z.string(),
    hostaddr: z.string().nullable(),
    port: z.number().int(),
    database_name: z.string().openapi({ description: "Maintenance database the collector connects to" }),
    username: z.string(),
    ssl_mode: SslModeSchema.nullable(),
    ssl_cert_path: z.string().nullable(),
    ssl_key_path: z.string().nullable(),
    ssl_root_cert_path: z.string().nullable(),
    is_monitored: z.boolean(),
    is_shared: z.boolean(),
    owner_username: z.string().nullable(),
    cluster_id: z.number().int().nullable(),
    membership_source: z.enum(["auto", "manual"]),
    connection_error: z
      .string()
      .nullable()
      .openapi({ description: "Why the collector cannot reach the server; null when it can" }),
    created_at: TimestampSchema,
    updated_at: TimestampSchema,
  })
  .openapi("Connection");

const required = (text: string) => z.string(message(text)).trim().min(1, message(text));

const connectionFields = {
  description: z.string().max(2000).optional(),
  hostaddr: z.string().optional(),
  ssl_mode: SslModeSchema.optional(),
  ssl_cert_path: z.string().optional(),
  ssl_key_path: z.string().optional(),
  ssl_root_cert_path: z.string().optional(),
  is_shared: z.boolean(message("is_shared must be a boolean")).optional(),
  is_monitored: z.boolean(message("is_monitored must be a boolean")).optional(),
};

const port = z
  .number(message("Port is required and must be positive"))
  .int(message("Invalid port"))
  .positive(message("Port is required and must be positive"));

export const ConnectionCreateSchema = z
  .object({
    name: required("Name is required"),
    host: required("Host is required"),
    port,
    database_name: required("Maintenance Database is required"),
    username: required("Username is required"),
    password: z.string(message("Password is required")).min(1, message("Password is required")),
    ...connectionFields,
  })
  .openapi("ConnectionCreateRequest");

export const ConnectionUpdateSchema = z
  .object({
    name: z.string().trim().min(1, message("Name cannot be empty")).optional(),
    host: z.string().trim().min(1, message("Host cannot be empty")).optional(),
    port: port.optional(),
    database_name: z.string().trim().min(1, message("Maintenance Database cannot be empty")).optional(),
    username: z.string().trim().min(1, message("Username cannot be empty")).optional(),
    password: z.string().min(1, message("Password cannot be empty")).optional(),
    ...connectionFields,
  })
  .openapi("ConnectionUpdateRequest");

export const DatabaseInfoSchema = z
  .object({
    name: z.string(),
    owner: z.string(),
    encoding: z.string(),
    size: z.string().openapi({ description: "Human-readable size, e.g. 7.5 MB" }),
    tablespace: z.string(),
    description: z.string().nullable(),
  })
  .openapi("DatabaseInfo");

export const CurrentConnectionSchema = z
  .object({
    connection_id: z.number().int(),
    database_name: z.string().nullable(),
    host: z.string(),
    port: z.number().int(),
    name: z.string(),
  })
  .openapi("CurrentConnectionResponse");

export const CurrentConnectionRequestSchema = z
  .object({
    connection_id: z.number(message("connection_id is required")).int(message("connection_id is required")),
    database_name: z.string().min(1).optional(),
  })
  .openapi("CurrentConnectionRequest");

export const QueryRequestSchema = z
  .object({
    query: z.string(message("Query is required")).trim().min(1, message("Query is required")),
    database_name: z.string().min(1).optional(),
    confirmed: z
      .boolean()
      .optional()
      .openapi({ description: "Run write statements (needs read_write access)" }),
  })
  .openapi("ConnectionQueryRequest");

export const QueryStatementResultSchema = z
  .object({
    query: z.string(),
    columns: z.array(z.string()),
    rows: z.array(z.array(z.string().nullable())),
    row_count: z.number().int(),
    truncated: z.boolean(),
    error: z.string().optional(),
  })
  .openapi("ConnectionQueryStatementResult");

export const QueryResponseSchema = z
  .union([
    z
      .object({ results: z.array(QueryStatementResultSchema), total_statements: z.number().int() })
      .openapi("ConnectionQueryResults"),
    z
      .object({
        requires_confirmation: z.literal(true),
        write_statements: z.array(z.string()),
        confirmation_message: z.string(),
      })
      .openapi("ConnectionQueryConfirmation"),
  ])
  .openapi("ConnectionQueryResponse");

export const ConnectionContextSchema = z
  .object({
    connection_id: z.number().int(),
    server_name: z.string(),
    postgresql: z
      .object({
        version: z.string().nullable(),
        version_num: z.number().int().nullable(),
        max_connections: z.number().int().nullable(),
        data_directory: z.string().nullable(),
        installed_extensions: z.array(z.string()),
        settings: z.record(z.string(), z.string()),
      })
      .optional(),
    system: z
      .object({
        os_name: z.string().nullable(),
        os_version: z.string().nullable(),
        architecture: z.string().nullable(),
        hostname: z.string().nullable(),
        cpu: z.object({
          model: z.string().nullable(),
          cores: z.number().int().nullable(),
          logical_processors: z.number().int().nullable(),
          clock_speed_hz: z.number().int().nullable(),
        }),
        memory: z.object({
          total_bytes: z.number().int().nullable(),
          free_bytes: z.number().int().nullable(),
        }),
        disks: z.array(
          z.object({
            mount_point: z.string(),
            filesystem_type: z.string().nullable(),
            total_bytes: z.number().int().nullable(),
            used_bytes: z.number().int().nullable(),
            free_bytes: z.number().int().nullable(),
          }),
        ),
      })
      .optional(),
  })
  .openapi("ConnectionContext");

export const ConnectionClusterInfoSchema = z
  .object({
    cluster_id: z.number().int().nullable(),
    role: z.string().nullable(),
    membership_source: z.enum(["auto", "manual"]),
    cluster_name: z.string().nullable(),
    replication_type: z.string().nullable(),
    auto_cluster_key: z.string().nullable(),
  })
  .openapi("ConnectionClusterInfo");

export const NodeRelationshipSchema = z
  .object({
    id: z.number().int(),
    cluster_id: z.number().int(),
    source_connection_id: z.number().int(),
    target_connection_id: z.number().int(),
    source_name: z.string(),
    target_name: z.string(),
    relationship_type: z.enum(["streams_from", "subscribes_to", "replicates_with"]),
    is_auto_detected: z.boolean(),
  })
  .openapi("NodeRelationship");

export const ConnectionClusterSchema = z
  .object({
    info: ConnectionClusterInfoSchema,
    clusters: z.array(
      z.object({
        id: z.number().int(),
        name: z.string(),
        replication_type: z.string().nullable(),
        auto_cluster_key: z.string().nullable(),
      }),
    ),
    relationships: z.array(NodeRelationshipSchema),
  })
  .openapi("ConnectionClusterResponse");

export const ConnectionClusterUpdateSchema = z
  .object({
    cluster_id: z.number().int().positive().nullable(),
    role: z.string().max(64).nullable().optional(),
    membership_source: z
      .enum(["auto", "manual"], message("membership_source must be auto or manual"))
      .optional(),
  })
  .openapi("ConnectionClusterUpdateRequest");

/**
 * Longest statement the index advisor takes, in characters: a costing session holds a workload's
 * statements together, and must stay within the SQL parser's cap.
 */
export const MAX_ADVISED_STATEMENT_LENGTH = 20_000;

const DatabaseNameSchema = z
  .string()
  .min(1)
  .max(63)
  .optional()
  .openapi({ description: "Database to advise on; defaults to the connection's database" });

export const IndexAdviceRequestSchema = z
  .object({
    database_name: DatabaseNameSchema,
    statements: z
      .array(
        z.string().min(1).max(MAX_ADVISED_STATEMENT_LENGTH),
        message("statements must be a list of SQL statements"),
      )
      .min(1)
      .max(20)
      .optional()
      .openapi({
        description:
          "The workload: SELECT, UPDATE or DELETE statements, one per item. Without it, the top statements of pg_stat_statements in the database by total execution time.",
      }),
    size_budget_mb: z
      .number()
      .int()
      .min(1)
      .max(1_048_576)
      .optional()
      .openapi({ description: "Estimated size all recommended indexes may take together (default 1024)" }),
    top_statements: z
      .number()
      .int()
      .min(1)
      .max(50)
      .optional()
      .openapi({ description: "Statements taken from pg_stat_statements (default 10)" }),
  })
  .openapi("IndexAdviceRequest");

const CostSchema = z.number().openapi({ description: "The planner's estimated total cost" });

export const IndexAdviceSchema = z
  .object({
    database_name: z.string(),
    workload_source: z.enum(["pg_stat_statements", "request"]),
    hypopg_version: z.string(),
    size_budget_bytes: z.number().int(),
    statements: z.array(
      z.object({
        id: z
          .number()
          .int()
          .openapi({ description: "Its number in this answer (recommendations refer to it)" }),
        query: z.string(),
        calls: z
          .number()
          .nullable()
          .openapi({ description: "Calls in pg_stat_statements; null for given statements" }),
        cost_before: CostSchema.nullable(),
        cost_after: CostSchema.nullable().openapi({ description: "With all recommended indexes" }),
        skipped: z.string().nullable().openapi({ description: "Why the statement was not costed" }),
      }),
    ),
    recommendations: z.array(
      z.object({
        create_index: z.string().openapi({ example: 'CREATE INDEX ON "public"."orders" ("customer_id")' }),
        schema_name: z.string(),
        table_name: z.string(),
        columns: z.array(z.string()),
        include: z.array(z.string()),
        estimated_size_bytes: z
          .number()
          .int()
          .openapi({ description: "HypoPG's estimate (hypopg_relation_size)" }),
        helps: z.array(
          z.object({
            statement_id: z.number().int(),
            cost_before: CostSchema.openapi({ description: "Without hypothetical indexes" }),
            cost_after: CostSchema.openapi({
              description: "With this index and the recommendations listed before it",
            }),
          }),
        ),
      }),
    ),
    already_covered: z
      .array(z.object({ create_index: z.string(), existing_index: z.string() }))
      .openapi({ description: "Candidates left out because an existing index has the same leading columns" }),
    candidates_considered: z.number().int(),
    total_cost_before: CostSchema.openapi({ description: "Costs of the statements weighted by their calls" }),
    total_cost_after: CostSchema,
    estimated_size_bytes: z.number().int(),
  })
  .openapi("IndexAdvice");

export const HypotheticalExplainRequestSchema = z
  .object({
    database_name: DatabaseNameSchema,
    statement: z
      .string(message("statement is required"))
      .min(1, message("statement is required"))
      .max(MAX_ADVISED_STATEMENT_LENGTH),
    indexes: z
      .array(z.string().min(1).max(10_000), message("indexes must be a list of CREATE INDEX statements"))
      .min(1)
      .max(10)
      .openapi({ description: "CREATE INDEX statements (plain columns, INCLUDE; btree, hash or brin)" }),
  })
  .openapi("HypotheticalExplainRequest");

export const HypotheticalExplainSchema = z
  .object({
    database_name: z.string(),
    statement: z.string(),
    cost_before: CostSchema,
    cost_after: CostSchema,
    plan_before: z.string(),
    plan_after: z.string(),
    indexes: z.array(
      z.object({
        create_index: z.string().openapi({ description: "The definition as dbmon gave it to HypoPG" }),
        hypothetical_name: z.string(),
        estimated_size_bytes: z.number().int(),
        used: z.boolean().openapi({ description: "The plan with hypothetical indexes uses it" }),
      }),
    ),
  })
  .openapi("HypotheticalExplain");
