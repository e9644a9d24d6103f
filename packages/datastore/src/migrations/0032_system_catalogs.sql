-- Whether a probe that lists objects of every schema lists the system catalogs' too; null where a
-- probe has none to leave out. Collectors seed it for new probes from the catalogue
-- (`systemCatalogsOptional`); rows seeded before this column existed get the default here.
ALTER TABLE "probe_configs" ADD COLUMN "include_system_catalogs" boolean;
--> statement-breakpoint
UPDATE probe_configs SET include_system_catalogs = true
WHERE name IN ('pg_stat_all_tables', 'pg_stat_all_indexes');
