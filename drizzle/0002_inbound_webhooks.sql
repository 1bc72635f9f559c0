CREATE TABLE `inbound_event_results` (
	`event_id` integer PRIMARY KEY NOT NULL,
	`account_id` integer NOT NULL,
	`contact_id` integer,
	`company_id` integer,
	`deal_id` integer,
	`task_ids` text DEFAULT '[]' NOT NULL,
	FOREIGN KEY (`account_id`,`event_id`) REFERENCES `inbound_events`(`account_id`,`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`account_id`,`contact_id`) REFERENCES `contacts`(`account_id`,`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`account_id`,`company_id`) REFERENCES `companies`(`account_id`,`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`account_id`,`deal_id`) REFERENCES `deals`(`account_id`,`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `inbound_events` (
	`id` integer PRIMARY KEY NOT NULL,
	`account_id` integer NOT NULL,
	`webhook_id` integer NOT NULL,
	`mode` text NOT NULL,
	`status` text DEFAULT 'pending' NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`error` text,
	`payload` text NOT NULL,
	`headers` text NOT NULL,
	`idempotency_key` text,
	`received_at` integer NOT NULL,
	`queued_at` integer NOT NULL,
	`processed_at` integer,
	`preview` text,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`account_id`,`webhook_id`) REFERENCES `inbound_webhooks`(`account_id`,`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `inbound_events_account_id_uq` ON `inbound_events` (`account_id`,`id`);--> statement-breakpoint
CREATE UNIQUE INDEX `inbound_events_idempotency_uq` ON `inbound_events` (`webhook_id`,`idempotency_key`);--> statement-breakpoint
CREATE INDEX `inbound_events_webhook_idx` ON `inbound_events` (`account_id`,`webhook_id`,`received_at`,`id`);--> statement-breakpoint
CREATE INDEX `inbound_events_status_idx` ON `inbound_events` (`account_id`,`webhook_id`,`status`,`received_at`,`id`);--> statement-breakpoint
CREATE INDEX `inbound_events_mode_idx` ON `inbound_events` (`account_id`,`webhook_id`,`mode`,`received_at`,`id`);--> statement-breakpoint
CREATE INDEX `inbound_events_queue_idx` ON `inbound_events` (`status`,`queued_at`);--> statement-breakpoint
CREATE TABLE `inbound_webhooks` (
	`id` integer PRIMARY KEY NOT NULL,
	`account_id` integer NOT NULL,
	`name` text NOT NULL,
	`token` text NOT NULL,
	`enabled` integer DEFAULT true NOT NULL,
	`mode` text DEFAULT 'production' NOT NULL,
	`secret` text,
	`fields` text NOT NULL,
	`flows` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `inbound_webhooks_account_id_uq` ON `inbound_webhooks` (`account_id`,`id`);--> statement-breakpoint
CREATE UNIQUE INDEX `inbound_webhooks_token_uq` ON `inbound_webhooks` (`token`);--> statement-breakpoint
CREATE INDEX `inbound_webhooks_created_idx` ON `inbound_webhooks` (`account_id`,`created_at`,`id`);--> statement-breakpoint
CREATE TABLE `webhook_rotations` (
	`account_id` integer NOT NULL,
	`webhook_id` integer NOT NULL,
	`action` integer NOT NULL,
	`turns` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`webhook_id`, `action`),
	FOREIGN KEY (`account_id`,`webhook_id`) REFERENCES `inbound_webhooks`(`account_id`,`id`) ON UPDATE no action ON DELETE no action
);
