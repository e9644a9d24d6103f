-- The rows were running averages of the alerter's own evaluations; baselines are now calculated from
-- the collected history (the alerter recalculates them when it starts). The new key names columns
-- that must exist before it.
DELETE FROM "metric_baselines";--> statement-breakpoint
ALTER TABLE "metric_baselines" DROP CONSTRAINT "metric_baselines_connection_id_database_name_metric_name_pk";--> statement-breakpoint
ALTER TABLE "metric_baselines" ADD COLUMN "object_name" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "metric_baselines" ADD COLUMN "period" text NOT NULL;--> statement-breakpoint
ALTER TABLE "metric_baselines" ADD COLUMN "period_value" smallint NOT NULL;--> statement-breakpoint
ALTER TABLE "metric_baselines" ADD COLUMN "time_zone" text NOT NULL;--> statement-breakpoint
ALTER TABLE "metric_baselines" ADD COLUMN "min" double precision NOT NULL;--> statement-breakpoint
ALTER TABLE "metric_baselines" ADD COLUMN "max" double precision NOT NULL;--> statement-breakpoint
ALTER TABLE "metric_baselines" ADD COLUMN "outlier_count" integer NOT NULL;--> statement-breakpoint
ALTER TABLE "metric_baselines" ADD COLUMN "last_sample_at" timestamp with time zone NOT NULL;--> statement-breakpoint
ALTER TABLE "metric_baselines" ADD CONSTRAINT "metric_baselines_key" PRIMARY KEY("connection_id","database_name","metric_name","object_name","period","period_value");--> statement-breakpoint
ALTER TABLE "metric_baselines" ADD CONSTRAINT "metric_baselines_period" CHECK ("metric_baselines"."period" in ('all', 'hour_of_day', 'day_of_week'));
