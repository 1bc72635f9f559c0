ALTER TABLE `inbound_events` ADD `warnings` text DEFAULT '[]' NOT NULL;--> statement-breakpoint
ALTER TABLE `inbound_events` ADD `rejection` text;