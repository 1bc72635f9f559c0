CREATE TABLE `outbound_cursor` (
	`name` text PRIMARY KEY NOT NULL,
	`seq` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `webhook_attempts` (
	`account_id` integer NOT NULL,
	`delivery_id` integer NOT NULL,
	`attempt` integer NOT NULL,
	`at` integer NOT NULL,
	`status` integer,
	`latency_ms` integer NOT NULL,
	`response` text NOT NULL,
	`error` text,
	PRIMARY KEY(`account_id`, `delivery_id`, `attempt`),
	FOREIGN KEY (`account_id`,`delivery_id`) REFERENCES `webhook_deliveries`(`account_id`,`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `webhook_deliveries` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`account_id` integer NOT NULL,
	`endpoint_id` integer NOT NULL,
	`message_id` text NOT NULL,
	`type` text NOT NULL,
	`record_key` text,
	`version` integer,
	`body` text NOT NULL,
	`status` text DEFAULT 'pending' NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`tries` integer DEFAULT 0 NOT NULL,
	`next_attempt_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`account_id`,`endpoint_id`) REFERENCES `webhook_endpoints`(`account_id`,`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `webhook_deliveries_account_id_uq` ON `webhook_deliveries` (`account_id`,`id`);--> statement-breakpoint
CREATE UNIQUE INDEX `webhook_deliveries_message_uq` ON `webhook_deliveries` (`endpoint_id`,`message_id`);--> statement-breakpoint
CREATE INDEX `webhook_deliveries_endpoint_idx` ON `webhook_deliveries` (`account_id`,`endpoint_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `webhook_deliveries_record_idx` ON `webhook_deliveries` (`endpoint_id`,`record_key`,`version`);--> statement-breakpoint
CREATE INDEX `webhook_deliveries_due_idx` ON `webhook_deliveries` (`status`,`next_attempt_at`);--> statement-breakpoint
CREATE INDEX `webhook_deliveries_created_idx` ON `webhook_deliveries` (`created_at`);--> statement-breakpoint
CREATE TABLE `webhook_endpoints` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`account_id` integer NOT NULL,
	`url` text NOT NULL,
	`description` text,
	`event_types` text NOT NULL,
	`enabled` integer DEFAULT true NOT NULL,
	`disabled_reason` text,
	`secret` text NOT NULL,
	`previous_secret` text,
	`previous_secret_expires_at` integer,
	`failing_since` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`deleted_at` integer,
	`version` integer DEFAULT 0 NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `webhook_endpoints_account_id_uq` ON `webhook_endpoints` (`account_id`,`id`);--> statement-breakpoint
CREATE INDEX `webhook_endpoints_created_idx` ON `webhook_endpoints` (`account_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `webhook_endpoints_created_trash_idx` ON `webhook_endpoints` (`account_id`,`created_at`,`id`) WHERE "webhook_endpoints"."deleted_at" is not null;--> statement-breakpoint
CREATE INDEX `webhook_endpoints_purge_idx` ON `webhook_endpoints` (`deleted_at`) WHERE "webhook_endpoints"."deleted_at" is not null;--> statement-breakpoint
-- At most 50 live webhook endpoints per account, checked inside the insert as api_keys_cap (0017)
-- is, so concurrent creates cannot all pass a count read before them. A restore from the trash is
-- an update, not an insert: it may take an account past 50, which only stops its next create.
-- src/core/errors.ts MAX_ENDPOINTS holds the same number for messages and docs.
CREATE TRIGGER webhook_endpoints_cap BEFORE INSERT ON webhook_endpoints
WHEN (SELECT count(*) FROM webhook_endpoints WHERE account_id = new.account_id AND deleted_at IS NULL) >= 50 BEGIN
  SELECT RAISE(ABORT, 'webhook_endpoint_limit_reached');
END;
