CREATE TABLE `account_shards` (
	`account_id` integer PRIMARY KEY NOT NULL,
	`shard` integer NOT NULL,
	`state` text DEFAULT 'active' NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `account_shards_shard_idx` ON `account_shards` (`shard`);--> statement-breakpoint
-- Every account made before shards lives on shard 0 (the only database there was). On another shard
-- (new, empty when this runs) it copies nothing: only shard 0's directory is read (docs/scaling.md).
INSERT INTO `account_shards` (`account_id`, `shard`, `state`, `created_at`) SELECT `id`, 0, 'active', `created_at` FROM `accounts`;
