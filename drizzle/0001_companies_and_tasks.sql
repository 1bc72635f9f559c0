-- Rebuilt to add the composite foreign key of owner_id, which ALTER TABLE cannot add. D1 keeps
-- foreign keys on; deferring them lets contacts and deals point at the table while it is swapped.
PRAGMA defer_foreign_keys = on;--> statement-breakpoint
CREATE TABLE `__new_companies` (
	`id` integer PRIMARY KEY NOT NULL,
	`account_id` integer NOT NULL,
	`name` text NOT NULL,
	`name_norm` text NOT NULL,
	`cnpj` text NOT NULL,
	`owner_id` integer,
	`segment` text,
	`segment_norm` text,
	`observations` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`account_id`,`owner_id`) REFERENCES `users`(`account_id`,`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
INSERT INTO `__new_companies`("id", "account_id", "name", "name_norm", "cnpj", "created_at", "updated_at") SELECT "id", "account_id", "name", "name_norm", "cnpj", "created_at", "updated_at" FROM `companies`;--> statement-breakpoint
DROP TABLE `companies`;--> statement-breakpoint
ALTER TABLE `__new_companies` RENAME TO `companies`;--> statement-breakpoint
PRAGMA defer_foreign_keys = off;--> statement-breakpoint
CREATE TABLE `company_followers` (
	`account_id` integer NOT NULL,
	`company_id` integer NOT NULL,
	`user_id` integer NOT NULL,
	PRIMARY KEY(`account_id`, `company_id`, `user_id`),
	FOREIGN KEY (`account_id`,`company_id`) REFERENCES `companies`(`account_id`,`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`account_id`,`user_id`) REFERENCES `users`(`account_id`,`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `company_followers_user_idx` ON `company_followers` (`account_id`,`user_id`);--> statement-breakpoint
CREATE TABLE `task_categories` (
	`id` integer PRIMARY KEY NOT NULL,
	`account_id` integer NOT NULL,
	`name` text NOT NULL,
	`name_norm` text NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `task_categories_account_id_uq` ON `task_categories` (`account_id`,`id`);--> statement-breakpoint
CREATE UNIQUE INDEX `task_categories_name_uq` ON `task_categories` (`account_id`,`name_norm`);--> statement-breakpoint
CREATE TABLE `task_owners` (
	`account_id` integer NOT NULL,
	`task_id` integer NOT NULL,
	`user_id` integer NOT NULL,
	PRIMARY KEY(`account_id`, `task_id`, `user_id`),
	FOREIGN KEY (`account_id`,`task_id`) REFERENCES `tasks`(`account_id`,`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`account_id`,`user_id`) REFERENCES `users`(`account_id`,`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `task_owners_user_idx` ON `task_owners` (`account_id`,`user_id`,`task_id`);--> statement-breakpoint
CREATE TABLE `tasks` (
	`id` integer PRIMARY KEY NOT NULL,
	`account_id` integer NOT NULL,
	`name` text NOT NULL,
	`deal_id` integer NOT NULL,
	`category_id` integer NOT NULL,
	`description` text,
	`due_date` integer,
	`completed_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`account_id`,`deal_id`) REFERENCES `deals`(`account_id`,`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`account_id`,`category_id`) REFERENCES `task_categories`(`account_id`,`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `tasks_account_id_uq` ON `tasks` (`account_id`,`id`);--> statement-breakpoint
CREATE INDEX `tasks_created_idx` ON `tasks` (`account_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `tasks_updated_idx` ON `tasks` (`account_id`,`updated_at`,`id`);--> statement-breakpoint
CREATE INDEX `tasks_deal_idx` ON `tasks` (`account_id`,`deal_id`,`id`);--> statement-breakpoint
CREATE INDEX `tasks_due_idx` ON `tasks` (`account_id`,`due_date`,`id`);--> statement-breakpoint
CREATE INDEX `tasks_category_idx` ON `tasks` (`account_id`,`category_id`);--> statement-breakpoint
DROP INDEX `deals_company_idx`;--> statement-breakpoint
CREATE INDEX `deals_company_idx` ON `deals` (`account_id`,`company_id`,`status`);--> statement-breakpoint
CREATE UNIQUE INDEX `companies_account_id_uq` ON `companies` (`account_id`,`id`);--> statement-breakpoint
CREATE UNIQUE INDEX `companies_cnpj_uq` ON `companies` (`account_id`,`cnpj`);--> statement-breakpoint
CREATE INDEX `companies_created_idx` ON `companies` (`account_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `companies_name_idx` ON `companies` (`account_id`,`name_norm`,`id`);--> statement-breakpoint
CREATE INDEX `companies_owner_idx` ON `companies` (`account_id`,`owner_id`);--> statement-breakpoint
CREATE INDEX `companies_segment_idx` ON `companies` (`account_id`,`segment_norm`);