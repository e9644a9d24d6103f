-- The default cluster group: auto-detected clusters are placed in it, and it cannot be deleted.
INSERT INTO "cluster_groups" ("name", "description", "is_default", "is_shared")
VALUES ('Servers/Clusters', 'Default group for auto-detected clusters and servers', true, true)
ON CONFLICT DO NOTHING;
