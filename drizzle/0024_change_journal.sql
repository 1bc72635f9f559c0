CREATE TABLE `journal_entries` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`id` text NOT NULL,
	`account_id` integer NOT NULL,
	`type` text NOT NULL,
	`record_type` text NOT NULL,
	`record_id` integer NOT NULL,
	`version` integer NOT NULL,
	`occurred_at` integer NOT NULL,
	`actor` text NOT NULL,
	`data` text,
	`previous` text,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `journal_entries_id_uq` ON `journal_entries` (`id`);--> statement-breakpoint
CREATE INDEX `journal_entries_feed_idx` ON `journal_entries` (`account_id`,`seq`);--> statement-breakpoint
CREATE INDEX `journal_entries_record_idx` ON `journal_entries` (`account_id`,`record_type`,`record_id`,`seq`);--> statement-breakpoint
CREATE INDEX `journal_entries_open_idx` ON `journal_entries` (`record_type`,`account_id`,`record_id`) WHERE "journal_entries"."data" is null;--> statement-breakpoint
CREATE INDEX `journal_entries_occurred_idx` ON `journal_entries` (`occurred_at`);--> statement-breakpoint
ALTER TABLE `companies` ADD `version` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
-- Rows written before the journal count as version 1: version 0 means never journaled (src/journal/statements.ts).
UPDATE `companies` SET `version` = 1;--> statement-breakpoint
ALTER TABLE `contacts` ADD `version` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
-- Rows written before the journal count as version 1: version 0 means never journaled (src/journal/statements.ts).
UPDATE `contacts` SET `version` = 1;--> statement-breakpoint
ALTER TABLE `deals` ADD `version` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
-- Rows written before the journal count as version 1: version 0 means never journaled (src/journal/statements.ts).
UPDATE `deals` SET `version` = 1;--> statement-breakpoint
ALTER TABLE `tasks` ADD `version` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
-- Rows written before the journal count as version 1: version 0 means never journaled (src/journal/statements.ts).
UPDATE `tasks` SET `version` = 1;--> statement-breakpoint
ALTER TABLE `users` ADD `version` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
-- Rows written before the journal count as version 1: version 0 means never journaled (src/journal/statements.ts).
UPDATE `users` SET `version` = 1;