import { advisoryLocks, type Datastore } from "@dbmon/datastore";
import { InvalidInput } from "../errors.js";
import type { Logger } from "../logger.js";
import { type CorpusChunk, corpusDigest, loadCorpus } from "./corpus.js";

/** The system_settings key that records which corpus the index holds. */
const DIGEST_KEY = "knowledge_base_corpus";

export const DEFAULT_TOP_N = 5;
export const MAX_TOP_N = 20;
/** Characters of a section's text returned with a match. */
const SECTION_PREVIEW_CHARACTERS = 2_000;

export interface KnowledgeBaseQuery {
  query: string;
  projectNames?: readonly string[] | undefined;
  projectVersions?: readonly string[] | undefined;
  topN?: number | undefined;
}

export interface KnowledgeBaseMatch {
  project_name: string;
  project_version: string;
  source: string;
  title: string;
  rank: number;
  snippet: string;
  /** The section's text, cut at SECTION_PREVIEW_CHARACTERS. */
  content: string;
}

export interface KnowledgeBaseProduct {
  project_name: string;
  project_version: string;
  sections: number;
  sources: string[];
}

/**
 * The documentation corpus shipped in dbmon's build, indexed in the datastore for full-text search
 * (tsvector, GIN, ranked; titles weigh more than text). The index is rebuilt when the corpus differs
 * from the one it holds (another dbmon version started on the datastore), by one process at a time.
 */
export class KnowledgeBase {
  #indexed: Promise<void> | undefined;

  constructor(
    private readonly deps: {
      datastore: Datastore;
      logger: Logger;
      /** The corpus; the files of this build unless a test gives another. */
      corpus?: () => Promise<CorpusChunk[]>;
    },
  ) {}

  /** Indexes the corpus unless the datastore already holds this one; once per process. */
  ensureIndexed(): Promise<void> {
    this.#indexed ??= this.index().catch((error: unknown) => {
      this.#indexed = undefined;
      throw error;
    });
    return this.#indexed;
  }

  /** Sections matching the query, best first: all of its words before some of them. */
  async search(input: KnowledgeBaseQuery): Promise<KnowledgeBaseMatch[]> {
    const text = input.query.trim();
    if (!text) {
      throw new InvalidInput("query is required unless list_products is true");
    }
    await this.ensureIndexed();
    const topN = Math.min(Math.max(input.topN ?? DEFAULT_TOP_N, 1), MAX_TOP_N);
    const names = input.projectNames?.length ? [...input.projectNames] : null;
    const versions = input.projectVersions?.length ? [...input.projectVersions] : null;
    const { sql } = this.deps.datastore;
    const rows = await sql<KnowledgeBaseMatch[]>`
      with terms as (
        select websearch_to_tsquery('english', ${text}) as every_word,
               nullif(replace(plainto_tsquery('english', ${text})::text, ' & ', ' | '), '')::tsquery as any_word
      ), ranked as (
        select k.id, k.project_name, k.project_version, k.source, k.title, k.content,
               (case when k.search @@ terms.every_word then 1 else 0 end
                 + ts_rank(k.search, terms.any_word))::float8 as rank,
               terms.any_word
          from knowledge_base_chunks k, terms
         where k.search @@ terms.any_word
           and (${names}::text[] is null or lower(k.project_name) = any (select lower(unnest(${names}::text[]))))
           and (${versions}::text[] is null or k.project_version = any (${versions}::text[]))
         order by rank desc, k.id
         limit ${topN}
      )
      select project_name, project_version, source, title, round(rank::numeric, 4)::float8 as rank,
             ts_headline('english', content, any_word,
                         'MaxFragments=2, MaxWords=30, MinWords=10, StartSel=**, StopSel=**, FragmentDelimiter=" … "') as snippet,
             left(content, ${SECTION_PREVIEW_CHARACTERS}) as content
        from ranked
       order by rank desc, id`;
    return [...rows];
  }

  /** The projects and versions the knowledge base covers. */
  async products(): Promise<KnowledgeBaseProduct[]> {
    await this.ensureIndexed();
    const rows = await this.deps.datastore.sql<KnowledgeBaseProduct[]>`
      select project_name, project_version, count(*)::int as sections,
             array_agg(distinct source order by source) as sources
        from knowledge_base_chunks
       group by project_name, project_version
       order by project_name, project_version`;
    return [...rows];
  }

  private async index(): Promise<void> {
    const chunks = await (this.deps.corpus ?? loadCorpus)();
    const digest = corpusDigest(chunks);
    const rebuilt = await this.deps.datastore.sql.begin(async (tx) => {
      await tx`select pg_advisory_xact_lock(${advisoryLocks.knowledgeBaseIndex})`;
      const [held] = await tx<{ digest: string | null }[]>`
        select value ->> 'digest' as digest from system_settings where key = ${DIGEST_KEY}`;
      if (held?.digest === digest) {
        return false;
      }
      await tx`delete from knowledge_base_chunks`;
      const rows = chunks.map((chunk) => ({
        project_name: chunk.projectName,
        project_version: chunk.projectVersion,
        source: chunk.source,
        title: chunk.title,
        content: chunk.content,
      }));
      for (let at = 0; at < rows.length; at += 200) {
        await tx`insert into knowledge_base_chunks ${tx(rows.slice(at, at + 200))}`;
      }
      await tx`
        insert into system_settings (key, value, updated_at)
        values (${DIGEST_KEY}, ${JSON.stringify({ digest, sections: rows.length })}::jsonb, now())
        on conflict (key) do update set value = excluded.value, updated_at = excluded.updated_at`;
      return true;
    });
    if (rebuilt) {
      this.deps.logger.info({ sections: chunks.length }, "indexed the knowledge base");
    }
  }
}
