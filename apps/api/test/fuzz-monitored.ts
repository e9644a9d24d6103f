import { randomBytes } from "node:crypto";
import { databaseUrl } from "@dbmon/datastore/testing";
import postgres from "postgres";

/**
 * Where the fuzzer's SQL lands, and how it tells that nothing was written: sentinel objects that
 * every generated write aims at (fuzz-sql.ts), a cheap witness of them and of the catalog taken
 * after every SQL request, and a fingerprint of every catalog taken before and after the run.
 */

/** The sentinel objects; the monitored database's are its role's, so a write that escaped would succeed. */
const SENTINEL_DDL = `
  create table fuzz_sentinel (id int primary key, note text);
  insert into fuzz_sentinel select g, 'row ' || g from generate_series(1, 10) g;
  create sequence fuzz_sentinel_seq;
  create procedure fuzz_sentinel_touch() language sql as $$ update fuzz_sentinel set note = 'touched' $$;
`;

type Sql = postgres.Sql;

function session(url: string): Sql {
  return postgres(url, { max: 1, onnotice: () => {}, idle_timeout: 5 });
}

/**
 * Drops what the fuzzer's writes create (every relation, routine and schema named fuzz_…, every
 * large object) and the sentinel, as a superuser.
 */
const CLEANUP = `
  do $$
  declare
    found record;
  begin
    for found in
      select oid::regclass as name, case relkind when 'v' then 'view' when 'm' then 'materialized view'
                                                 when 'S' then 'sequence' else 'table' end as kind
        from pg_class
       where relnamespace = 'public'::regnamespace and relname like 'fuzz\\_%' and relkind in ('r', 'p', 'v', 'm', 'S')
    loop
      execute format('drop %s if exists %s cascade', found.kind, found.name);
    end loop;
    for found in
      select oid::regprocedure as name from pg_proc
       where pronamespace = 'public'::regnamespace and proname like 'fuzz\\_%'
    loop
      execute format('drop routine if exists %s cascade', found.name);
    end loop;
    for found in select nspname from pg_namespace where nspname like 'fuzz\\_%' loop
      execute format('drop schema %I cascade', found.nspname);
    end loop;
    perform lo_unlink(oid) from pg_largeobject_metadata;
  end
  $$;
`;

/**
 * Creates the sentinel objects in the database `sql` (a superuser's session) is connected to,
 * owned by `owner` when given, after dropping what earlier writes left.
 */
export async function createSentinel(sql: Sql, owner?: string): Promise<void> {
  await sql.begin(async (tx) => {
    await tx.unsafe(CLEANUP);
    if (owner !== undefined) {
      await tx.unsafe(`set local role "${owner}"`);
    }
    await tx.unsafe(SENTINEL_DDL);
  });
}

/**
 * What changes with any write the fuzzer can attempt, named: the sentinel's rows and sequence, and
 * counts and sums over the catalogs that any CREATE, DROP, ALTER, TRUNCATE, REINDEX, CLUSTER,
 * COMMENT, GRANT or large object changes; `role`, when given, adds that role's attributes and
 * settings. Cheap enough to take after every request.
 */
export async function writeWitness(
  sql: Sql | postgres.TransactionSql,
  role?: string,
): Promise<Record<string, string>> {
  // The sentinel is read through query_to_xml so that a dropped sentinel is a value, not an error
  // (which would abort the transaction the witness may be taken in).
  const [witness] = await sql<Record<string, string>[]>`
    select
      case when to_regclass('public.fuzz_sentinel') is null then 'dropped'
           else md5(query_to_xml('select * from public.fuzz_sentinel order by 1', true, false, '')::text)
      end as "sentinel rows",
      case when to_regclass('public.fuzz_sentinel_seq') is null then 'dropped'
           else query_to_xml('select last_value, is_called from public.fuzz_sentinel_seq', true, false, '')::text
      end as "sentinel sequence",
      (select count(*) || '/' || sum(oid::int8) || '/' || sum(relfilenode::int8) || '/' || sum(relnatts)
         from pg_class) as pg_class,
      (select count(*) || '/' || sum(oid::int8) from pg_proc) as pg_proc,
      (select count(*)::text from pg_namespace) as pg_namespace,
      (select count(*)::text from pg_attribute) as pg_attribute,
      (select count(*)::text from pg_description) as pg_description,
      (select count(*)::text from pg_largeobject_metadata) as pg_largeobject_metadata,
      (select count(*)::text from pg_extension) as pg_extension,
      (select md5(coalesce(string_agg(relname || coalesce(relacl::text, ''), ',' order by relname), ''))
         from pg_class where relnamespace = 'public'::regnamespace) as "public grants",
      (select md5(coalesce(string_agg(setconfig::text, ',' order by setconfig::text), ''))
         from pg_db_role_setting
        where setdatabase = (select oid from pg_database where datname = current_database())
           or setrole = (select oid from pg_roles where rolname = ${role ?? null})) as "role and database settings",
      (select md5(row(rolsuper, rolinherit, rolcreaterole, rolcreatedb, rolcanlogin, rolreplication,
                      rolbypassrls, rolconnlimit, rolpassword, rolvaliduntil)::text)
         from pg_authid where rolname = ${role ?? null}) as "role attributes"`;
  return witness ?? {};
}

/**
 * One hash per catalog of the database (pg_class without the columns VACUUM and ANALYZE change,
 * the statistics left out), and the rows of the shared catalogs that concern this database and
 * `role`: what any object created, dropped or altered changes.
 */
export async function catalogFingerprint(sql: Sql, role?: string): Promise<Record<string, string>> {
  const catalogs = await sql<{ name: string }[]>`
    select relname as name from pg_class
     where relnamespace = 'pg_catalog'::regnamespace and relkind = 'r' and not relisshared
       and relname not in ('pg_class', 'pg_statistic', 'pg_statistic_ext_data', 'pg_largeobject')
     order by relname`;
  const fingerprint: Record<string, string> = {};
  for (const { name } of catalogs) {
    const [row] = await sql.unsafe<{ hash: string }[]>(
      `select md5(coalesce(string_agg(t::text, E'\\n' order by t::text), '')) as hash from pg_catalog."${name}" t`,
    );
    fingerprint[name] = row?.hash ?? "";
  }
  const [rest] = await sql<Record<string, string>[]>`
    select
      (select md5(string_agg(row(oid, relname, relnamespace, reltype, relowner, relam, relfilenode,
                                 reltablespace, relhasindex, relpersistence, relkind, relnatts, relchecks,
                                 relhasrules, relhastriggers, relrowsecurity, relforcerowsecurity,
                                 relispopulated, relreplident, relispartition, relacl, reloptions)::text,
                             E'\n' order by oid))
         from pg_class) as pg_class,
      (select count(*)::text from pg_largeobject) as pg_largeobject,
      (select md5(row(datname, datdba, encoding, datistemplate, datallowconn, datconnlimit, datacl)::text)
         from pg_database where datname = current_database()) as pg_database,
      (select md5(coalesce(string_agg(d::text, ',' order by d::text), ''))
         from pg_db_role_setting d
        where setdatabase = (select oid from pg_database where datname = current_database())
           or setrole = (select oid from pg_roles where rolname = ${role ?? null})) as pg_db_role_setting,
      (select md5(coalesce(string_agg(a::text, ',' order by a::text), ''))
         from pg_authid a where rolname = ${role ?? null}) as pg_authid,
      (select md5(coalesce(string_agg(m::text, ',' order by m::text), ''))
         from pg_auth_members m
        where member = (select oid from pg_roles where rolname = ${role ?? null})
           or roleid = (select oid from pg_roles where rolname = ${role ?? null})) as pg_auth_members`;
  return { ...fingerprint, ...rest };
}

/** The names whose values differ: catalogs of a fingerprint, parts of a witness. */
export function changedParts(before: Record<string, string>, after: Record<string, string>): string[] {
  const names = new Set([...Object.keys(before), ...Object.keys(after)]);
  return [...names].filter((name) => before[name] !== after[name]).sort();
}

/** A database of its own on the test server, owned by a login role of its own (not a superuser). */
export interface MonitoredDatabase {
  name: string;
  role: string;
  password: string;
  /** A superuser's session on the database, for witnesses and fingerprints. */
  inspector: Sql;
  drop(): Promise<void>;
}

export async function createMonitoredDatabase(serverUrl: string): Promise<MonitoredDatabase> {
  const name = `dbmon_fuzz_${randomBytes(5).toString("hex")}`;
  const role = name;
  const password = randomBytes(16).toString("hex");
  const admin = session(serverUrl);
  try {
    await admin.unsafe(
      `create role "${role}" login password '${password}' nosuperuser nocreatedb nocreaterole noreplication`,
    );
    await admin.unsafe(`create database "${name}" owner "${role}"`);
  } finally {
    await admin.end();
  }
  const inspector = session(databaseUrl(serverUrl, name));
  await createSentinel(inspector, role);
  return {
    name,
    role,
    password,
    inspector,
    async drop() {
      await inspector.end();
      const dropper = session(serverUrl);
      try {
        await dropper.unsafe(`drop database if exists "${name}" with (force)`);
        await dropper.unsafe(`drop role if exists "${role}"`);
      } finally {
        await dropper.end();
      }
    },
  };
}
