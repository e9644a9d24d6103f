import { performance } from "node:perf_hooks";
import type { ProbeCollection } from "./types.js";

// int8 and numeric values are cast to float8 (or text when they may exceed 2^53) so that the
// driver returns numbers.

export const pgServerInfo: ProbeCollection = {
  name: "pg_server_info",
  queries: [
    {
      minVersion: 0,
      // pg_settings hides what the role may not read (data_directory) instead of failing.
      sql: `select
  (select setting from pg_settings where name = 'server_version') as server_version,
  current_setting('server_version_num')::int as server_version_num,
  case when has_function_privilege('pg_control_system()', 'execute')
    then (select system_identifier::text from pg_control_system()) end as system_identifier,
  (select setting from pg_settings where name = 'cluster_name') as cluster_name,
  (select setting from pg_settings where name = 'data_directory') as data_directory,
  current_setting('max_connections')::int as max_connections,
  current_setting('max_wal_senders')::int as max_wal_senders,
  current_setting('max_replication_slots')::int as max_replication_slots,
  array(select extname::text from pg_extension order by extname) as installed_extensions`,
    },
  ],
};

const pgDatabaseColumns = `d.datname::text as datname,
  d.datdba::int8::float8 as datdba,
  pg_encoding_to_char(d.encoding)::text as encoding,
  %LOCPROVIDER% as datlocprovider,
  d.datistemplate,
  d.datallowconn,
  d.datconnlimit,
  d.datfrozenxid::text::float8 as datfrozenxid,
  d.datminmxid::text::float8 as datminmxid,
  d.dattablespace::int8::float8 as dattablespace,
  age(d.datfrozenxid) as age_datfrozenxid,
  mxid_age(d.datminmxid) as age_datminmxid,
  case when has_database_privilege(d.oid, 'CONNECT') then pg_database_size(d.oid)::float8 end
    as database_size_bytes
from pg_database d
order by d.datname`;

export const pgDatabase: ProbeCollection = {
  name: "pg_database",
  queries: [
    { minVersion: 0, sql: `select ${pgDatabaseColumns.replace("%LOCPROVIDER%", "null::text")}` },
    {
      minVersion: 150000,
      sql: `select ${pgDatabaseColumns.replace("%LOCPROVIDER%", "d.datlocprovider::text")}`,
    },
  ],
};

export const pgSettings: ProbeCollection = {
  name: "pg_settings",
  queries: [
    {
      minVersion: 0,
      sql: `select name, setting, unit, category, short_desc, extra_desc, context, vartype, source,
  min_val, max_val, enumvals, boot_val, reset_val, sourcefile, sourceline, pending_restart
from pg_settings
order by name`,
    },
  ],
};

export const pgConnectivity: ProbeCollection = {
  name: "pg_connectivity",
  async collect(context) {
    const started = performance.now();
    await context.query("select 1");
    return [{ response_time_ms: performance.now() - started }];
  },
};

export const pgExtension: ProbeCollection = {
  name: "pg_extension",
  queries: [
    {
      minVersion: 0,
      sql: `select e.extname::text as extname, e.extversion, e.extrelocatable, n.nspname::text as schema_name
from pg_extension e
join pg_namespace n on n.oid = e.extnamespace
order by e.extname`,
    },
  ],
};
