ALTER TABLE `inbound_webhooks` ADD `previous_token` text;--> statement-breakpoint
ALTER TABLE `inbound_webhooks` ADD `previous_token_expires_at` integer;--> statement-breakpoint
CREATE UNIQUE INDEX `inbound_webhooks_previous_token_uq` ON `inbound_webhooks` (`previous_token`);