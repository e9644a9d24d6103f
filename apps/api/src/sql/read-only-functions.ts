/**
 * The functions a read-only statement may call, by name (unqualified or in pg_catalog). Everything
 * here computes a value from its arguments, the catalogs or the statistics, inside the statement's
 * own transaction. Left out on purpose, whatever their name's resemblance to what is here:
 * - functions with effects outside the transaction or the statement: signalling backends
 *   (pg_terminate_backend, pg_cancel_backend), configuration (set_config, pg_reload_conf), locks
 *   held past the statement (pg_advisory_*), notifications (pg_notify), sequences (nextval, setval),
 *   statistics resets, WAL, backup and replication control, index maintenance
 *   (brin_summarize_new_values, gin_clean_pending_list), transaction ids (txid_current);
 * - functions that read server files or reach other servers (pg_read_file, pg_ls_dir, lo_*, dblink*);
 * - functions that run SQL given as text, which would hide any of the above (query_to_xml,
 *   cursor_to_xml, table_to_xml, ts_rewrite and ts_stat with a query, database_to_xml, xpath is kept);
 * - user-defined functions, which are not known to be any of these.
 * A statement naming any other function is not a read: the query endpoint then asks for confirmation
 * and read-write access, and the read-only tools refuse it with the function's name.
 */
const FUNCTION_GROUPS: Record<string, string> = {
  aggregates: `
    array_agg avg bit_and bit_or bit_xor bool_and bool_or count every json_agg json_object_agg
    jsonb_agg jsonb_object_agg max min range_agg range_intersect_agg string_agg sum xmlagg
    any_value corr covar_pop covar_samp regr_avgx regr_avgy regr_count regr_intercept regr_r2
    regr_slope regr_sxx regr_sxy regr_syy stddev stddev_pop stddev_samp variance var_pop var_samp
    mode percentile_cont percentile_disc rank dense_rank percent_rank cume_dist grouping
    json_agg_strict json_object_agg_strict json_object_agg_unique json_object_agg_unique_strict
    jsonb_agg_strict jsonb_object_agg_strict jsonb_object_agg_unique jsonb_object_agg_unique_strict
    json_arrayagg json_objectagg`,
  windows: `row_number ntile lag lead first_value last_value nth_value`,
  math: `
    abs cbrt ceil ceiling degrees div exp factorial floor gcd lcm ln log log10 min_scale mod pi
    power radians round scale sign sqrt trim_scale trunc width_bucket random random_normal
    acos acosd asin asind atan atand atan2 atan2d cos cosd cot cotd sin sind tan tand
    cosh sinh tanh acosh asinh atanh erf erfc gamma lgamma numeric int2 int4 int8 float4 float8`,
  strings: `
    ascii bit_length btrim char_length character_length chr concat concat_ws format initcap
    left length lower lpad ltrim md5 normalize octet_length overlay position quote_ident
    quote_literal quote_nullable regexp_count regexp_instr regexp_like regexp_match
    regexp_matches regexp_replace regexp_split_to_array regexp_split_to_table regexp_substr
    repeat replace reverse right rpad rtrim split_part starts_with string_to_array
    string_to_table strpos substr substring to_ascii to_hex to_bin to_oct translate trim upper
    unistr casefold sha224 sha256 sha384 sha512 encode decode convert convert_from convert_to
    get_bit get_byte set_bit set_byte bit_count crc32 crc32c uuid_extract_timestamp
    uuid_extract_version gen_random_uuid uuidv4 uuidv7 text varchar bpchar name`,
  patterns: `like_escape similar_escape similar_to_escape`,
  formatting: `to_char to_date to_number to_timestamp`,
  datetime: `
    age clock_timestamp current_date current_time current_timestamp date_add date_bin
    date_part date_subtract date_trunc extract isfinite justify_days justify_hours
    justify_interval localtime localtimestamp make_date make_interval make_time make_timestamp
    make_timestamptz now statement_timestamp timeofday transaction_timestamp timezone
    to_timestamp overlaps`,
  enums: `enum_first enum_last enum_range`,
  geometry: `
    area center diagonal diameter height isclosed isopen npoints pclose popen radius slope
    width box circle line lseg path point polygon bound_box`,
  network: `
    abbrev broadcast family host hostmask inet_merge inet_same_family masklen netmask network
    set_masklen trunc macaddr8_set7bit inet cidr`,
  text_search: `
    array_to_tsvector get_current_ts_config numnode plainto_tsquery phraseto_tsquery querytree
    setweight strip to_tsquery to_tsvector json_to_tsvector jsonb_to_tsvector ts_delete
    ts_filter ts_headline ts_rank ts_rank_cd tsvector_to_array unnest websearch_to_tsquery
    ts_debug ts_lexize ts_parse ts_token_type`,
  uuid_and_xml: `
    xmlcomment xmlconcat xmlelement xmlforest xmlpi xmlroot xmlexists xml_is_well_formed
    xml_is_well_formed_document xml_is_well_formed_content xpath xpath_exists xmlparse
    xmlserialize xmltext`,
  json: `
    array_to_json json_array_elements json_array_elements_text json_array_length json_build_array
    json_build_object json_each json_each_text json_extract_path json_extract_path_text
    json_object json_object_keys json_populate_record json_populate_recordset json_scalar
    json_serialize json_strip_nulls json_to_record json_to_recordset json_typeof row_to_json
    to_json jsonb_array_elements jsonb_array_elements_text jsonb_array_length jsonb_build_array
    jsonb_build_object jsonb_each jsonb_each_text jsonb_extract_path jsonb_extract_path_text
    jsonb_insert jsonb_object jsonb_object_keys jsonb_path_exists jsonb_path_match
    jsonb_path_query jsonb_path_query_array jsonb_path_query_first jsonb_path_exists_tz
    jsonb_path_match_tz jsonb_path_query_tz jsonb_path_query_array_tz jsonb_path_query_first_tz
    jsonb_populate_record jsonb_populate_recordset jsonb_populate_record_valid jsonb_pretty
    jsonb_set jsonb_set_lax jsonb_strip_nulls jsonb_to_record jsonb_to_recordset jsonb_typeof
    to_jsonb json_array json_exists json_query json_value`,
  arrays: `
    array_append array_cat array_dims array_fill array_length array_lower array_ndims
    array_position array_positions array_prepend array_remove array_replace array_reverse
    array_sample array_shuffle array_sort array_to_string array_upper cardinality trim_array
    unnest generate_series generate_subscripts`,
  ranges: `
    isempty lower_inc upper_inc lower_inf upper_inf range_merge multirange int4range int8range
    numrange tsrange tstzrange daterange int4multirange int8multirange nummultirange
    tsmultirange tstzmultirange datemultirange`,
  conditional: `coalesce greatest least nullif num_nulls num_nonnulls`,
  session_information: `
    current_catalog current_database current_query current_role current_schema current_schemas
    current_user session_user system_user user inet_client_addr inet_client_port
    inet_server_addr inet_server_port pg_backend_pid pg_blocking_pids pg_conf_load_time
    pg_current_logfile pg_is_other_temp_schema pg_jit_available pg_listening_channels
    pg_my_temp_schema pg_postmaster_start_time pg_safe_snapshot_blocking_pids
    pg_trigger_depth version unicode_version icu_unicode_version pg_numa_available
    current_setting pg_settings_get_flags pg_sleep`,
  privileges: `
    has_any_column_privilege has_column_privilege has_database_privilege
    has_foreign_data_wrapper_privilege has_function_privilege has_language_privilege
    has_largeobject_privilege has_parameter_privilege has_schema_privilege
    has_sequence_privilege has_server_privilege has_table_privilege has_tablespace_privilege
    has_type_privilege pg_has_role row_security_active acldefault aclexplode makeaclitem`,
  visibility: `
    pg_collation_is_visible pg_conversion_is_visible pg_function_is_visible
    pg_opclass_is_visible pg_operator_is_visible pg_opfamily_is_visible
    pg_statistics_obj_is_visible pg_table_is_visible pg_ts_config_is_visible
    pg_ts_dict_is_visible pg_ts_parser_is_visible pg_ts_template_is_visible pg_type_is_visible`,
  catalog_information: `
    format_type pg_basetype pg_char_to_encoding pg_encoding_to_char pg_get_catalog_foreign_keys
    pg_get_constraintdef pg_get_expr pg_get_functiondef pg_get_function_arguments
    pg_get_function_identity_arguments pg_get_function_result pg_get_indexdef pg_get_keywords
    pg_get_partkeydef pg_get_ruledef pg_get_serial_sequence pg_get_statisticsobjdef
    pg_get_triggerdef pg_get_userbyid pg_get_viewdef pg_index_column_has_property
    pg_index_has_property pg_indexam_has_property pg_options_to_table pg_settings_get_flags
    pg_tablespace_databases pg_tablespace_location pg_typeof pg_collation_for
    pg_describe_object pg_identify_object pg_identify_object_as_address pg_get_object_address
    pg_input_is_valid pg_input_error_info pg_get_acl col_description obj_description
    shobj_description to_regclass to_regcollation to_regnamespace to_regoper
    to_regoperator to_regproc to_regprocedure to_regrole to_regtype to_regtypemod
    pg_column_compression pg_column_size pg_column_toast_chunk_id pg_database_size
    pg_indexes_size pg_relation_filenode pg_relation_filepath pg_relation_size
    pg_size_bytes pg_size_pretty pg_table_size pg_tablespace_size pg_total_relation_size
    pg_partition_ancestors pg_partition_root pg_partition_tree pg_filenode_relation
    pg_get_publication_tables pg_event_trigger_ddl_commands pg_available_extensions
    pg_available_extension_versions pg_extension_update_paths pg_show_all_settings
    pg_show_all_file_settings pg_hba_file_rules pg_ident_file_mappings pg_timezone_names
    pg_timezone_abbrevs pg_get_replication_slots pg_get_shmem_allocations pg_prepared_statement
    pg_prepared_xact pg_cursor pg_lock_status pg_get_backend_memory_contexts
    pg_visible_in_snapshot pg_xact_status pg_current_snapshot pg_snapshot_xmin
    pg_snapshot_xmax pg_snapshot_xip pg_current_xact_id_if_assigned txid_current_if_assigned
    txid_current_snapshot txid_snapshot_xmin txid_snapshot_xmax txid_snapshot_xip
    txid_visible_in_snapshot txid_status pg_xact_commit_timestamp pg_last_committed_xact
    pg_control_checkpoint pg_control_system pg_control_init pg_control_recovery
    pg_get_wal_resource_managers pg_get_wait_events pg_get_multixact_members
    pg_stat_get_wal_receiver pg_stat_get_subscription pg_stat_get_replication_slot`,
  recovery_and_wal: `
    pg_is_in_recovery pg_last_wal_receive_lsn pg_last_wal_replay_lsn
    pg_last_xact_replay_timestamp pg_current_wal_lsn pg_current_wal_insert_lsn
    pg_current_wal_flush_lsn pg_walfile_name pg_walfile_name_offset pg_split_walfile_name
    pg_wal_lsn_diff pg_is_wal_replay_paused pg_get_wal_replay_pause_state
    pg_available_wal_summaries pg_wal_summary_contents pg_get_wal_summarizer_state`,
  statistics: `
    pg_stat_get_activity pg_stat_get_backend_idset pg_stat_get_backend_pid
    pg_stat_get_backend_dbid pg_stat_get_backend_userid pg_stat_get_backend_activity
    pg_stat_get_backend_wait_event pg_stat_get_backend_wait_event_type
    pg_stat_get_backend_activity_start pg_stat_get_backend_xact_start
    pg_stat_get_backend_start pg_stat_get_backend_client_addr pg_stat_get_backend_client_port
    pg_stat_get_progress_info pg_stat_get_snapshot_timestamp pg_stat_get_numscans
    pg_stat_get_lastscan pg_stat_get_tuples_returned pg_stat_get_tuples_fetched
    pg_stat_get_tuples_inserted pg_stat_get_tuples_updated pg_stat_get_tuples_deleted
    pg_stat_get_tuples_hot_updated pg_stat_get_live_tuples pg_stat_get_dead_tuples
    pg_stat_get_blocks_fetched pg_stat_get_blocks_hit pg_stat_get_last_vacuum_time
    pg_stat_get_last_autovacuum_time pg_stat_get_last_analyze_time
    pg_stat_get_last_autoanalyze_time pg_stat_get_vacuum_count pg_stat_get_autovacuum_count
    pg_stat_get_analyze_count pg_stat_get_autoanalyze_count pg_stat_get_db_numbackends
    pg_stat_get_db_xact_commit pg_stat_get_db_xact_rollback pg_stat_get_db_blocks_fetched
    pg_stat_get_db_blocks_hit pg_stat_get_db_conflict_all pg_stat_get_db_deadlocks
    pg_stat_get_db_temp_bytes pg_stat_get_db_temp_files pg_stat_get_wal pg_stat_get_io
    pg_stat_get_archiver pg_stat_get_bgwriter_buf_written_clean
    pg_stat_get_checkpointer_num_timed pg_stat_get_checkpointer_num_requested
    pg_stat_get_function_calls pg_stat_get_function_total_time pg_stat_get_function_self_time
    pg_stat_get_slru pg_stat_get_recovery_prefetch pg_stat_have_stats pg_stat_get_xact_numscans
    pg_stat_statements pg_stat_statements_info pg_buffercache_summary pg_buffercache_usage_counts
    pg_stat_get_backend_io pg_stat_get_backend_wal`,
  object_size_and_type_casts: `
    bool int2 int4 int8 oid regclass regproc regtype date time timetz timestamp timestamptz
    interval bytea uuid xml json jsonb tsvector tsquery bit varbit money`,
};

/** Lower-case names of the functions a read-only statement may call. */
export const READ_ONLY_FUNCTIONS: ReadonlySet<string> = new Set(
  Object.values(FUNCTION_GROUPS).flatMap((names) => names.split(/\s+/).filter(Boolean)),
);
