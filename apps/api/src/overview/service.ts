import { createHash } from "node:crypto";
import type { Datastore, Sql } from "@dbmon/datastore";
import type { LlmClient } from "@dbmon/llm";
import type { TransactionSql } from "postgres";
import type { RequestAccess } from "../auth/access.js";
import type { Clock } from "../clock.js";
import { InvalidInput, NotFound, OperationFailed, Unavailable } from "../errors.js";
import type { Logger } from "../logger.js";
import { OpenStreamLimit } from "../open-stream-limit.js";
import type { Timeline } from "../timeline/service.js";
import { GenerationLeases } from "./generation-leases.js";
import { OVERVIEW_CHANNEL, type Overview, OverviewHub, type OverviewSubscription } from "./hub.js";
import { describeSnapshot, OVERVIEW_INSTRUCTIONS, type SubjectKind } from "./prompt.js";
import { buildSnapshot, compareSnapshots, type OverviewSnapshot } from "./snapshot.js";

/** How long a summary is current (`stale_at`) and a scoped one is served from the datastore. */
export const OVERVIEW_TTL_MS = 5 * 60 * 1000;
const ESTATE_KEY = "estate";

export interface OverviewQuery {
  connection_ids?: string | undefined;
  scope_type?: string | undefined;
  scope_id?: string | undefined;
  scope_name?: string | undefined;
  refresh?: boolean | undefined;
}

/** What a request asks to be summarised, after validation and visibility. */
type Subject = { kind: "estate" } | { kind: "empty" } | ScopedSubject;

/** A scope or selection; its key names everything its prompt is written from. */
type ScopedSubject = {
  kind: Exclude<SubjectKind, "estate">;
  key: string;
  name: string | null;
  ids: number[];
};

/**
 * A scoped summary is shared by every caller whose prompt would be the same, and only by them: the
 * key is derived from all the prompt's inputs (the heading's kind and name, and the servers the
 * snapshot covers), so a caller's `scope_name` can never reach the summary another caller is served.
 * Hashed, because a name is caller text of any length and the key is also a NOTIFY payload.
 */
function scopedSubject(kind: ScopedSubject["kind"], name: string | null, ids: number[]): ScopedSubject {
  const digest = createHash("sha256")
    .update(JSON.stringify([kind, name, ids]))
    .digest("hex");
  return { kind, key: `${kind}:${digest}`, name, ids };
}

export type OverviewAnswer = Overview | { status: "generating" | "empty"; summary: null };

interface StoredOverview {
  summary: string;
  snapshot: OverviewSnapshot;
  restart_detected: boolean;
  generated_at: Date;
}

/**
 * The AI overview: the estate's, built every interval by one process at a time across all
 * instances and regenerated on a significant change, and summaries of scopes and selections of
 * servers, cached for five minutes in the datastore. Streams of every instance receive new ones.
 */
export class OverviewService {
  readonly hub: OverviewHub;
  /** The open streams of each user, capped. */
  readonly streams: OpenStreamLimit;
  private readonly inFlight = new Map<string, Promise<Overview>>();
  private readonly leases: GenerationLeases;
  private timer: NodeJS.Timeout | undefined;
  private ticking: Promise<unknown> | undefined;

  constructor(
    private readonly deps: {
      datastore: Datastore;
      llm: LlmClient | null;
      clock: Clock;
      logger: Logger;
      timeline: Timeline;
      intervalMs: number;
      keepaliveMs: number;
      /** Overview streams one user may have open at once in this process. */
      streamsPerUser: number;
      streamsPerProcess: number;
    },
  ) {
    this.hub = new OverviewHub({ datastore: deps.datastore, load: (key) => this.stored(key) });
    this.leases = new GenerationLeases(deps.datastore.sql);
    this.streams = new OpenStreamLimit(deps.streamsPerUser, deps.streamsPerProcess, "overview streams");
  }

  get keepaliveMs(): number {
    return this.deps.keepaliveMs;
  }

  /** Receives the overviews other instances store (nothing to do without a chat provider). */
  async listen(): Promise<void> {
    if (this.deps.llm) {
      await this.hub.listen();
    }
  }

  /** Builds the estate snapshot now and every interval, until `stop()`. */
  start(): void {
    if (!this.deps.llm || this.timer) {
      return;
    }
    this.generateInBackground();
    this.timer = setInterval(() => this.generateInBackground(), this.deps.intervalMs);
    this.timer.unref();
  }

  /** One unforced estate generation at a time in this process, awaited by `stop()`. */
  private generateInBackground(): void {
    this.ticking ??= this.refreshEstate(false)
      .catch((error: unknown) => this.deps.logger.warn({ err: error }, "overview: estate generation failed"))
      .finally(() => {
        this.ticking = undefined;
      });
  }

  /** Stops the generator and ends every open stream. */
  async stop(): Promise<void> {
    this.hub.closeAll();
    clearInterval(this.timer);
    this.timer = undefined;
    await this.ticking;
  }

  /** GET /api/v1/overview. */
  async get(access: RequestAccess, query: OverviewQuery): Promise<OverviewAnswer> {
    const llm = this.requireLlm();
    const subject = await this.subject(access, query);
    if (subject.kind === "empty") {
      return { status: "empty", summary: null };
    }
    if (subject.kind !== "estate") {
      return this.scoped(llm, subject);
    }
    if (query.refresh) {
      return (await this.refreshEstate(true)) ?? { status: "generating", summary: null };
    }
    return (await this.currentEstate()) ?? { status: "generating", summary: null };
  }

  /** The stored estate overview; when there is none yet, a generation is started in the background. */
  private async currentEstate(): Promise<Overview | null> {
    const current = await this.stored(ESTATE_KEY);
    if (!current) {
      // A fresh datastore, or no process runs the generator yet.
      this.generateInBackground();
    }
    return current;
  }

  /**
   * GET /api/v1/overview/stream: checks the request, then subscribes to its scope; the current
   * overview (the estate's, or a scope's, generated if need be) is offered first.
   */
  async subscribe(access: RequestAccess, query: OverviewQuery): Promise<OverviewSubscription> {
    const llm = this.requireLlm();
    const subject = await this.subject(access, query);
    const caller = await access.requireCaller();
    // Given back when the subscription closes: the stream ended, its client left, or the service stopped.
    const release = this.streams.open(caller.userId);
    if (subject.kind === "empty") {
      return this.hub.subscribe("empty", release);
    }
    const subscription = this.hub.subscribe(subject.kind === "estate" ? ESTATE_KEY : subject.key, release);
    const current = subject.kind === "estate" ? this.currentEstate() : this.scoped(llm, subject);
    current.then(
      (overview) => overview && subscription.offer(overview),
      (error: unknown) => this.deps.logger.warn({ err: error }, "overview: stream generation failed"),
    );
    return subscription;
  }

  private requireLlm(): LlmClient {
    if (!this.deps.llm) {
      throw new Unavailable("No chat provider is configured");
    }
    return this.deps.llm;
  }

  /** Validates the query (the reference's messages) and narrows it to what the caller can see. */
  private async subject(access: RequestAccess, query: OverviewQuery): Promise<Subject> {
    const visible = await access.visibleConnections();
    const readable = new Set(visible.ids);
    if (query.connection_ids !== undefined && query.connection_ids !== "") {
      const parts = query.connection_ids
        .split(",")
        .map((part) => part.trim())
        .filter(Boolean);
      if (parts.some((part) => !/^\d+$/.test(part) || Number(part) < 1 || Number(part) > 2_147_483_647)) {
        throw new InvalidInput("connection_ids must be comma-separated positive integers");
      }
      if (parts.length === 0) {
        throw new InvalidInput("connection_ids must contain at least one valid ID");
      }
      const ids = [...new Set(parts.map(Number))].filter((id) => readable.has(id)).sort((a, b) => a - b);
      return ids.length === 0 ? { kind: "empty" } : scopedSubject("selection", query.scope_name || null, ids);
    }
    const hasType = Boolean(query.scope_type);
    const hasId = Boolean(query.scope_id);
    if (hasType !== hasId) {
      throw new InvalidInput("Both scope_type and scope_id are required");
    }
    if (hasType) {
      const type = query.scope_type;
      if (type !== "server" && type !== "cluster" && type !== "group") {
        throw new InvalidInput("scope_type must be server, cluster, or group");
      }
      const id = /^\d+$/.test(query.scope_id ?? "") ? Number(query.scope_id) : 0;
      if (id < 1 || id > 2_147_483_647) {
        throw new InvalidInput("scope_id must be a positive integer");
      }
      const members = await this.scopeMembers(type, id);
      const ids = members.ids.filter((member) => readable.has(member)).sort((a, b) => a - b);
      if (ids.length === 0) {
        throw new NotFound("Scope not found");
      }
      return scopedSubject(type, query.scope_name || members.name, ids);
    }
    if (!visible.all) {
      const ids = [...visible.ids].sort((a, b) => a - b);
      return ids.length === 0
        ? { kind: "empty" }
        : scopedSubject("selection", query.scope_name || "Your servers", ids);
    }
    return { kind: "estate" };
  }

  /** The connections of a server, cluster or group scope and the scope's name. */
  private async scopeMembers(
    type: "server" | "cluster" | "group",
    id: number,
  ): Promise<{ ids: number[]; name: string | null }> {
    const { sql } = this.deps.datastore;
    const [row] =
      type === "server"
        ? await sql<{ ids: number[]; name: string | null }[]>`
            select array_agg(id) as ids, min(name) as name from connections where id = ${id}`
        : type === "cluster"
          ? await sql<{ ids: number[]; name: string | null }[]>`
              select array(select c.id from connections c where c.cluster_id = k.id) as ids, k.name
              from clusters k where k.id = ${id}`
          : await sql<{ ids: number[]; name: string | null }[]>`
              select array(select c.id from connections c join clusters k on k.id = c.cluster_id
                where k.group_id = g.id) as ids, g.name
              from cluster_groups g where g.id = ${id}`;
    return { ids: row?.ids ?? [], name: row?.name ?? null };
  }

  /**
   * Builds the estate snapshot and, on a significant change or when forced, has the summary
   * rewritten and stored, under a lease only one process holds at a time. Unforced, a process that
   * finds the lease taken leaves the work to its holder; forced, it waits and serves what the holder
   * stored if that is newer than its request. Null when nothing was generated.
   */
  async refreshEstate(force: boolean): Promise<Overview | null> {
    const llm = this.requireLlm();
    const requestedAt = this.deps.clock.now();
    const generate = async (): Promise<Overview | null> => {
      const { sql } = this.deps.datastore;
      const current = await this.read(sql, ESTATE_KEY);
      if (force && current && current.generated_at > requestedAt) {
        return present(current);
      }
      const snapshot = await buildSnapshot(
        { sql, timeline: this.deps.timeline },
        null,
        this.deps.clock.now(),
      );
      const change = compareSnapshots(current?.snapshot ?? null, snapshot);
      if (!force && !change.significant) {
        return null;
      }
      const stored: StoredOverview = {
        summary: await this.summarize(llm, "estate", null, snapshot),
        snapshot,
        restart_detected: change.restart,
        generated_at: this.deps.clock.now(),
      };
      await sql.begin(async (tx) => {
        await this.store(tx, ESTATE_KEY, stored);
        if (change.restart) {
          // Summaries and database analyses written before the restart may describe what it changed.
          await tx`delete from overview_summaries where scope_key <> ${ESTATE_KEY}`;
          await tx`delete from ai_analysis_cache`;
        }
      });
      return present(stored);
    };
    return force ? this.leases.hold(ESTATE_KEY, generate) : this.leases.tryHold(ESTATE_KEY, generate);
  }

  /**
   * A scope's or selection's overview: the stored one while it is current, else a new one. One
   * generation per key: requests of this process share a promise, other processes wait for the
   * key's lease and then find the stored result.
   */
  private scoped(llm: LlmClient, subject: ScopedSubject): Promise<Overview> {
    const running = this.inFlight.get(subject.key);
    if (running) {
      return running;
    }
    const { sql } = this.deps.datastore;
    const generation = this.leases
      .hold(subject.key, async () => {
        const current = await this.read(sql, subject.key);
        const now = this.deps.clock.now();
        if (current && now.getTime() - current.generated_at.getTime() < OVERVIEW_TTL_MS) {
          return present(current);
        }
        const snapshot = await buildSnapshot({ sql, timeline: this.deps.timeline }, subject.ids, now);
        const stored: StoredOverview = {
          summary: await this.summarize(llm, subject.kind, subject.name, snapshot),
          snapshot,
          restart_detected: false,
          generated_at: this.deps.clock.now(),
        };
        await sql.begin(async (tx) => {
          await tx`delete from overview_summaries
            where scope_key <> ${ESTATE_KEY}
              and generated_at < ${new Date(now.getTime() - OVERVIEW_TTL_MS).toISOString()}::timestamptz`;
          await this.store(tx, subject.key, stored);
        });
        return present(stored);
      })
      .finally(() => this.inFlight.delete(subject.key));
    this.inFlight.set(subject.key, generation);
    return generation;
  }

  private async summarize(
    llm: LlmClient,
    kind: SubjectKind,
    name: string | null,
    snapshot: OverviewSnapshot,
  ): Promise<string> {
    try {
      const completion = await llm.complete({
        system: OVERVIEW_INSTRUCTIONS,
        messages: [{ role: "user", content: describeSnapshot(kind, name, snapshot) }],
        maxTokens: 512,
        temperature: 0.3,
      });
      const text = completion.text.trim();
      if (text) {
        return text;
      }
      this.deps.logger.warn({ kind, provider: llm.provider }, "overview: the provider answered nothing");
    } catch (error) {
      this.deps.logger.warn(
        {
          kind,
          provider: llm.provider,
          model: llm.model,
          err: error instanceof Error ? error.message : error,
        },
        "overview: the provider call failed",
      );
    }
    throw new OperationFailed(`Failed to generate ${kind} summary`);
  }

  /** The stored overview of a key, whatever its age. */
  private async stored(key: string): Promise<Overview | null> {
    const row = await this.read(this.deps.datastore.sql, key);
    return row ? present(row) : null;
  }

  /** (Dates and JSON are read as text here: drizzle makes them pass through the driver unparsed.) */
  private async read(sql: Sql | TransactionSql, key: string): Promise<StoredOverview | null> {
    const [row] = await sql<
      { summary: string; snapshot: string; restart_detected: boolean; generated_ms: number }[]
    >`
      select summary, snapshot::text as snapshot, restart_detected,
        (extract(epoch from generated_at) * 1000)::float8 as generated_ms
      from overview_summaries where scope_key = ${key}`;
    return row
      ? {
          summary: row.summary,
          snapshot: JSON.parse(row.snapshot) as OverviewSnapshot,
          restart_detected: row.restart_detected,
          generated_at: new Date(row.generated_ms),
        }
      : null;
  }

  /** Stores an overview and announces it to the streams of every instance (at commit). */
  private async store(sql: Sql | TransactionSql, key: string, overview: StoredOverview): Promise<void> {
    await sql`
      insert into overview_summaries (scope_key, summary, snapshot, restart_detected, generated_at)
      values (${key}, ${overview.summary}, ${JSON.stringify(overview.snapshot)}::jsonb, ${overview.restart_detected},
        ${overview.generated_at.toISOString()}::timestamptz)
      on conflict (scope_key) do update set summary = excluded.summary, snapshot = excluded.snapshot,
        restart_detected = excluded.restart_detected, generated_at = excluded.generated_at`;
    await sql`select pg_notify(${OVERVIEW_CHANNEL}, ${key})`;
  }
}

/** The overview object of the wire. */
function present(stored: StoredOverview): Overview {
  return {
    summary: stored.summary,
    generated_at: stored.generated_at.toISOString(),
    stale_at: new Date(stored.generated_at.getTime() + OVERVIEW_TTL_MS).toISOString(),
    snapshot: stored.snapshot,
    ...(stored.restart_detected ? { restart_detected: true as const } : {}),
  };
}
