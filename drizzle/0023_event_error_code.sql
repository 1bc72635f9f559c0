ALTER TABLE `inbound_events` ADD `error_code` text;--> statement-breakpoint
ALTER TABLE `inbound_events` ADD `error_params` text;