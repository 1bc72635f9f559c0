CREATE TABLE `import_chunks` (
	`import_id` integer NOT NULL,
	`offset` integer NOT NULL,
	`errors` text,
	PRIMARY KEY(`import_id`, `offset`),
	FOREIGN KEY (`import_id`) REFERENCES `imports`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `imports` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`account_id` integer NOT NULL,
	`key_hash` text NOT NULL,
	`resource` text NOT NULL,
	`mode` text NOT NULL,
	`status` text NOT NULL,
	`file_key` text NOT NULL,
	`file_bytes` integer NOT NULL,
	`header` text NOT NULL,
	`delimiter` text NOT NULL,
	`mapping` text NOT NULL,
	`offset` integer NOT NULL,
	`line` integer NOT NULL,
	`rows` integer DEFAULT 0 NOT NULL,
	`created` integer DEFAULT 0 NOT NULL,
	`updated` integer DEFAULT 0 NOT NULL,
	`failed` integer DEFAULT 0 NOT NULL,
	`error` text,
	`created_at` integer NOT NULL,
	`finished_at` integer,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `imports_account_id_uq` ON `imports` (`account_id`,`id`);--> statement-breakpoint
CREATE INDEX `imports_account_status_idx` ON `imports` (`account_id`,`status`);--> statement-breakpoint
ALTER TABLE `companies` ADD `external_id` text;--> statement-breakpoint
CREATE UNIQUE INDEX `companies_external_id_uq` ON `companies` (`account_id`,`external_id`);--> statement-breakpoint
ALTER TABLE `contacts` ADD `external_id` text;--> statement-breakpoint
CREATE UNIQUE INDEX `contacts_external_id_uq` ON `contacts` (`account_id`,`external_id`);--> statement-breakpoint
ALTER TABLE `deals` ADD `external_id` text;--> statement-breakpoint
CREATE UNIQUE INDEX `deals_external_id_uq` ON `deals` (`account_id`,`external_id`);--> statement-breakpoint
ALTER TABLE `tasks` ADD `external_id` text;--> statement-breakpoint
CREATE UNIQUE INDEX `tasks_external_id_uq` ON `tasks` (`account_id`,`external_id`);--> statement-breakpoint
ALTER TABLE `users` ADD `external_id` text;--> statement-breakpoint
CREATE UNIQUE INDEX `users_external_id_uq` ON `users` (`account_id`,`external_id`);