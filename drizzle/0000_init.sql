CREATE TABLE `accounts` (
	`id` integer PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `api_keys` (
	`id` integer PRIMARY KEY NOT NULL,
	`account_id` integer NOT NULL,
	`key_hash` text NOT NULL,
	`created_at` integer NOT NULL,
	`revoked_at` integer,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `api_keys_hash_uq` ON `api_keys` (`key_hash`);--> statement-breakpoint
CREATE INDEX `api_keys_account_idx` ON `api_keys` (`account_id`);--> statement-breakpoint
CREATE TABLE `companies` (
	`id` integer PRIMARY KEY NOT NULL,
	`account_id` integer NOT NULL,
	`name` text NOT NULL,
	`name_norm` text NOT NULL,
	`cnpj` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `companies_account_id_uq` ON `companies` (`account_id`,`id`);--> statement-breakpoint
CREATE UNIQUE INDEX `companies_cnpj_uq` ON `companies` (`account_id`,`cnpj`);--> statement-breakpoint
CREATE INDEX `companies_created_idx` ON `companies` (`account_id`,`created_at`,`id`);--> statement-breakpoint
CREATE TABLE `contacts` (
	`id` integer PRIMARY KEY NOT NULL,
	`account_id` integer NOT NULL,
	`name` text NOT NULL,
	`name_norm` text NOT NULL,
	`email` text,
	`email_norm` text,
	`phone` text,
	`company_id` integer,
	`owner_id` integer,
	`custom_fields` text DEFAULT '{}' NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`account_id`,`company_id`) REFERENCES `companies`(`account_id`,`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`account_id`,`owner_id`) REFERENCES `users`(`account_id`,`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `contacts_account_id_uq` ON `contacts` (`account_id`,`id`);--> statement-breakpoint
CREATE INDEX `contacts_created_idx` ON `contacts` (`account_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `contacts_name_idx` ON `contacts` (`account_id`,`name_norm`,`id`);--> statement-breakpoint
CREATE INDEX `contacts_email_idx` ON `contacts` (`account_id`,`email_norm`);--> statement-breakpoint
CREATE INDEX `contacts_phone_idx` ON `contacts` (`account_id`,`phone`);--> statement-breakpoint
CREATE INDEX `contacts_company_idx` ON `contacts` (`account_id`,`company_id`);--> statement-breakpoint
CREATE INDEX `contacts_owner_idx` ON `contacts` (`account_id`,`owner_id`);--> statement-breakpoint
CREATE TABLE `deals` (
	`id` integer PRIMARY KEY NOT NULL,
	`account_id` integer NOT NULL,
	`name` text NOT NULL,
	`name_norm` text NOT NULL,
	`company_id` integer,
	`contact_id` integer,
	`owner_id` integer,
	`status` text DEFAULT 'open' NOT NULL,
	`value` real,
	`custom_fields` text DEFAULT '{}' NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`account_id`,`company_id`) REFERENCES `companies`(`account_id`,`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`account_id`,`contact_id`) REFERENCES `contacts`(`account_id`,`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`account_id`,`owner_id`) REFERENCES `users`(`account_id`,`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `deals_account_id_uq` ON `deals` (`account_id`,`id`);--> statement-breakpoint
CREATE INDEX `deals_created_idx` ON `deals` (`account_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `deals_updated_idx` ON `deals` (`account_id`,`updated_at`,`id`);--> statement-breakpoint
CREATE INDEX `deals_name_idx` ON `deals` (`account_id`,`name_norm`,`id`);--> statement-breakpoint
CREATE INDEX `deals_company_idx` ON `deals` (`account_id`,`company_id`);--> statement-breakpoint
CREATE INDEX `deals_contact_idx` ON `deals` (`account_id`,`contact_id`);--> statement-breakpoint
CREATE INDEX `deals_owner_idx` ON `deals` (`account_id`,`owner_id`);--> statement-breakpoint
CREATE INDEX `deals_status_idx` ON `deals` (`account_id`,`status`);--> statement-breakpoint
CREATE TABLE `users` (
	`id` integer PRIMARY KEY NOT NULL,
	`account_id` integer NOT NULL,
	`name` text NOT NULL,
	`name_norm` text NOT NULL,
	`email` text NOT NULL,
	`email_norm` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `users_account_id_uq` ON `users` (`account_id`,`id`);--> statement-breakpoint
CREATE UNIQUE INDEX `users_email_uq` ON `users` (`account_id`,`email_norm`);--> statement-breakpoint
CREATE INDEX `users_created_idx` ON `users` (`account_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `users_name_idx` ON `users` (`account_id`,`name_norm`,`id`);