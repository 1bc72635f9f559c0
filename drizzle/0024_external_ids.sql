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