CREATE TABLE `panel_sessions` (
	`id` integer PRIMARY KEY NOT NULL,
	`token_hash` text NOT NULL,
	`account_id` integer NOT NULL,
	`api_key_id` integer NOT NULL,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`api_key_id`) REFERENCES `api_keys`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `panel_sessions_token_uq` ON `panel_sessions` (`token_hash`);--> statement-breakpoint
CREATE INDEX `panel_sessions_expires_idx` ON `panel_sessions` (`expires_at`);