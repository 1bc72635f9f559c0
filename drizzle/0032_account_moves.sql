CREATE TABLE `account_freezes` (
	`account_id` integer PRIMARY KEY NOT NULL,
	`state` text NOT NULL,
	`move_id` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `account_moves` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`account_id` integer NOT NULL,
	`from_shard` integer NOT NULL,
	`to_shard` integer NOT NULL,
	`state` text NOT NULL,
	`progress` text NOT NULL,
	`tables` text NOT NULL,
	`fanout_from` integer,
	`frozen_at` integer,
	`switched_at` integer,
	`reopened_at` integer,
	`error` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`finished_at` integer
);
--> statement-breakpoint
CREATE INDEX `account_moves_account_idx` ON `account_moves` (`account_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `account_moves_running_uq` ON `account_moves` (`account_id`) WHERE "account_moves"."state" not in ('done', 'failed');--> statement-breakpoint
CREATE INDEX `account_moves_stalled_idx` ON `account_moves` (`updated_at`) WHERE "account_moves"."state" not in ('done', 'failed');--> statement-breakpoint
CREATE TABLE `credential_forwards` (
	`hash` text PRIMARY KEY NOT NULL,
	`shard` integer NOT NULL,
	`account_id` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `held_events` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`account_id` integer NOT NULL,
	`webhook_id` integer NOT NULL,
	`call` text NOT NULL,
	`received_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `held_events_account_idx` ON `held_events` (`account_id`,`id`);
-- The freeze triggers (src/core/moving-tables.ts freezeTriggerSql, generated from its one list;
-- test/moves/ checks these match it).
--> statement-breakpoint
CREATE TRIGGER accounts_freeze_insert BEFORE INSERT ON accounts
WHEN EXISTS (SELECT 1 FROM account_freezes WHERE account_id = NEW.id AND state IN ('frozen', 'moved', 'cleaning')) BEGIN
  SELECT RAISE(ABORT, 'account_moving');
END;
--> statement-breakpoint
CREATE TRIGGER accounts_freeze_update BEFORE UPDATE ON accounts
WHEN EXISTS (SELECT 1 FROM account_freezes WHERE account_id = NEW.id AND state IN ('frozen', 'moved', 'cleaning')) BEGIN
  SELECT RAISE(ABORT, 'account_moving');
END;
--> statement-breakpoint
CREATE TRIGGER accounts_freeze_delete BEFORE DELETE ON accounts
WHEN EXISTS (SELECT 1 FROM account_freezes WHERE account_id = OLD.id AND state IN ('frozen', 'moved')) BEGIN
  SELECT RAISE(ABORT, 'account_moving');
END;
--> statement-breakpoint
CREATE TRIGGER users_freeze_insert BEFORE INSERT ON users
WHEN EXISTS (SELECT 1 FROM account_freezes WHERE account_id = NEW.account_id AND state IN ('frozen', 'moved', 'cleaning')) BEGIN
  SELECT RAISE(ABORT, 'account_moving');
END;
--> statement-breakpoint
CREATE TRIGGER users_freeze_update BEFORE UPDATE ON users
WHEN EXISTS (SELECT 1 FROM account_freezes WHERE account_id = NEW.account_id AND state IN ('frozen', 'moved', 'cleaning')) BEGIN
  SELECT RAISE(ABORT, 'account_moving');
END;
--> statement-breakpoint
CREATE TRIGGER users_freeze_delete BEFORE DELETE ON users
WHEN EXISTS (SELECT 1 FROM account_freezes WHERE account_id = OLD.account_id AND state IN ('frozen', 'moved')) BEGIN
  SELECT RAISE(ABORT, 'account_moving');
END;
--> statement-breakpoint
CREATE TRIGGER api_keys_freeze_insert BEFORE INSERT ON api_keys
WHEN EXISTS (SELECT 1 FROM account_freezes WHERE account_id = NEW.account_id AND state IN ('frozen', 'moved', 'cleaning')) BEGIN
  SELECT RAISE(ABORT, 'account_moving');
END;
--> statement-breakpoint
CREATE TRIGGER api_keys_freeze_update BEFORE UPDATE ON api_keys
WHEN EXISTS (SELECT 1 FROM account_freezes WHERE account_id = NEW.account_id AND state IN ('frozen', 'moved', 'cleaning')) BEGIN
  SELECT RAISE(ABORT, 'account_moving');
END;
--> statement-breakpoint
CREATE TRIGGER api_keys_freeze_delete BEFORE DELETE ON api_keys
WHEN EXISTS (SELECT 1 FROM account_freezes WHERE account_id = OLD.account_id AND state IN ('frozen', 'moved')) BEGIN
  SELECT RAISE(ABORT, 'account_moving');
END;
--> statement-breakpoint
CREATE TRIGGER companies_freeze_insert BEFORE INSERT ON companies
WHEN EXISTS (SELECT 1 FROM account_freezes WHERE account_id = NEW.account_id AND state IN ('frozen', 'moved', 'cleaning')) BEGIN
  SELECT RAISE(ABORT, 'account_moving');
END;
--> statement-breakpoint
CREATE TRIGGER companies_freeze_update BEFORE UPDATE ON companies
WHEN EXISTS (SELECT 1 FROM account_freezes WHERE account_id = NEW.account_id AND state IN ('frozen', 'moved', 'cleaning')) BEGIN
  SELECT RAISE(ABORT, 'account_moving');
END;
--> statement-breakpoint
CREATE TRIGGER companies_freeze_delete BEFORE DELETE ON companies
WHEN EXISTS (SELECT 1 FROM account_freezes WHERE account_id = OLD.account_id AND state IN ('frozen', 'moved')) BEGIN
  SELECT RAISE(ABORT, 'account_moving');
END;
--> statement-breakpoint
CREATE TRIGGER company_followers_freeze_insert BEFORE INSERT ON company_followers
WHEN EXISTS (SELECT 1 FROM account_freezes WHERE account_id = NEW.account_id AND state IN ('frozen', 'moved', 'cleaning')) BEGIN
  SELECT RAISE(ABORT, 'account_moving');
END;
--> statement-breakpoint
CREATE TRIGGER company_followers_freeze_update BEFORE UPDATE ON company_followers
WHEN EXISTS (SELECT 1 FROM account_freezes WHERE account_id = NEW.account_id AND state IN ('frozen', 'moved', 'cleaning')) BEGIN
  SELECT RAISE(ABORT, 'account_moving');
END;
--> statement-breakpoint
CREATE TRIGGER company_followers_freeze_delete BEFORE DELETE ON company_followers
WHEN EXISTS (SELECT 1 FROM account_freezes WHERE account_id = OLD.account_id AND state IN ('frozen', 'moved')) BEGIN
  SELECT RAISE(ABORT, 'account_moving');
END;
--> statement-breakpoint
CREATE TRIGGER contacts_freeze_insert BEFORE INSERT ON contacts
WHEN EXISTS (SELECT 1 FROM account_freezes WHERE account_id = NEW.account_id AND state IN ('frozen', 'moved', 'cleaning')) BEGIN
  SELECT RAISE(ABORT, 'account_moving');
END;
--> statement-breakpoint
CREATE TRIGGER contacts_freeze_update BEFORE UPDATE ON contacts
WHEN EXISTS (SELECT 1 FROM account_freezes WHERE account_id = NEW.account_id AND state IN ('frozen', 'moved', 'cleaning')) BEGIN
  SELECT RAISE(ABORT, 'account_moving');
END;
--> statement-breakpoint
CREATE TRIGGER contacts_freeze_delete BEFORE DELETE ON contacts
WHEN EXISTS (SELECT 1 FROM account_freezes WHERE account_id = OLD.account_id AND state IN ('frozen', 'moved')) BEGIN
  SELECT RAISE(ABORT, 'account_moving');
END;
--> statement-breakpoint
CREATE TRIGGER deals_freeze_insert BEFORE INSERT ON deals
WHEN EXISTS (SELECT 1 FROM account_freezes WHERE account_id = NEW.account_id AND state IN ('frozen', 'moved', 'cleaning')) BEGIN
  SELECT RAISE(ABORT, 'account_moving');
END;
--> statement-breakpoint
CREATE TRIGGER deals_freeze_update BEFORE UPDATE ON deals
WHEN EXISTS (SELECT 1 FROM account_freezes WHERE account_id = NEW.account_id AND state IN ('frozen', 'moved', 'cleaning')) BEGIN
  SELECT RAISE(ABORT, 'account_moving');
END;
--> statement-breakpoint
CREATE TRIGGER deals_freeze_delete BEFORE DELETE ON deals
WHEN EXISTS (SELECT 1 FROM account_freezes WHERE account_id = OLD.account_id AND state IN ('frozen', 'moved')) BEGIN
  SELECT RAISE(ABORT, 'account_moving');
END;
--> statement-breakpoint
CREATE TRIGGER task_categories_freeze_insert BEFORE INSERT ON task_categories
WHEN EXISTS (SELECT 1 FROM account_freezes WHERE account_id = NEW.account_id AND state IN ('frozen', 'moved', 'cleaning')) BEGIN
  SELECT RAISE(ABORT, 'account_moving');
END;
--> statement-breakpoint
CREATE TRIGGER task_categories_freeze_update BEFORE UPDATE ON task_categories
WHEN EXISTS (SELECT 1 FROM account_freezes WHERE account_id = NEW.account_id AND state IN ('frozen', 'moved')) BEGIN
  SELECT RAISE(ABORT, 'account_moving');
END;
--> statement-breakpoint
CREATE TRIGGER task_categories_freeze_delete BEFORE DELETE ON task_categories
WHEN EXISTS (SELECT 1 FROM account_freezes WHERE account_id = OLD.account_id AND state IN ('frozen', 'moved')) BEGIN
  SELECT RAISE(ABORT, 'account_moving');
END;
--> statement-breakpoint
CREATE TRIGGER tasks_freeze_insert BEFORE INSERT ON tasks
WHEN EXISTS (SELECT 1 FROM account_freezes WHERE account_id = NEW.account_id AND state IN ('frozen', 'moved', 'cleaning')) BEGIN
  SELECT RAISE(ABORT, 'account_moving');
END;
--> statement-breakpoint
CREATE TRIGGER tasks_freeze_update BEFORE UPDATE ON tasks
WHEN EXISTS (SELECT 1 FROM account_freezes WHERE account_id = NEW.account_id AND state IN ('frozen', 'moved', 'cleaning')) BEGIN
  SELECT RAISE(ABORT, 'account_moving');
END;
--> statement-breakpoint
CREATE TRIGGER tasks_freeze_delete BEFORE DELETE ON tasks
WHEN EXISTS (SELECT 1 FROM account_freezes WHERE account_id = OLD.account_id AND state IN ('frozen', 'moved')) BEGIN
  SELECT RAISE(ABORT, 'account_moving');
END;
--> statement-breakpoint
CREATE TRIGGER task_owners_freeze_insert BEFORE INSERT ON task_owners
WHEN EXISTS (SELECT 1 FROM account_freezes WHERE account_id = NEW.account_id AND state IN ('frozen', 'moved', 'cleaning')) BEGIN
  SELECT RAISE(ABORT, 'account_moving');
END;
--> statement-breakpoint
CREATE TRIGGER task_owners_freeze_update BEFORE UPDATE ON task_owners
WHEN EXISTS (SELECT 1 FROM account_freezes WHERE account_id = NEW.account_id AND state IN ('frozen', 'moved', 'cleaning')) BEGIN
  SELECT RAISE(ABORT, 'account_moving');
END;
--> statement-breakpoint
CREATE TRIGGER task_owners_freeze_delete BEFORE DELETE ON task_owners
WHEN EXISTS (SELECT 1 FROM account_freezes WHERE account_id = OLD.account_id AND state IN ('frozen', 'moved')) BEGIN
  SELECT RAISE(ABORT, 'account_moving');
END;
--> statement-breakpoint
CREATE TRIGGER inbound_webhooks_freeze_insert BEFORE INSERT ON inbound_webhooks
WHEN EXISTS (SELECT 1 FROM account_freezes WHERE account_id = NEW.account_id AND state IN ('frozen', 'moved', 'cleaning')) BEGIN
  SELECT RAISE(ABORT, 'account_moving');
END;
--> statement-breakpoint
CREATE TRIGGER inbound_webhooks_freeze_update BEFORE UPDATE ON inbound_webhooks
WHEN EXISTS (SELECT 1 FROM account_freezes WHERE account_id = NEW.account_id AND state IN ('frozen', 'moved', 'cleaning')) BEGIN
  SELECT RAISE(ABORT, 'account_moving');
END;
--> statement-breakpoint
CREATE TRIGGER inbound_webhooks_freeze_delete BEFORE DELETE ON inbound_webhooks
WHEN EXISTS (SELECT 1 FROM account_freezes WHERE account_id = OLD.account_id AND state IN ('frozen', 'moved')) BEGIN
  SELECT RAISE(ABORT, 'account_moving');
END;
--> statement-breakpoint
CREATE TRIGGER inbound_events_freeze_insert BEFORE INSERT ON inbound_events
WHEN EXISTS (SELECT 1 FROM account_freezes WHERE account_id = NEW.account_id AND state IN ('frozen', 'moved', 'cleaning')) BEGIN
  SELECT RAISE(ABORT, 'account_moving');
END;
--> statement-breakpoint
CREATE TRIGGER inbound_events_freeze_update BEFORE UPDATE ON inbound_events
WHEN EXISTS (SELECT 1 FROM account_freezes WHERE account_id = NEW.account_id AND state IN ('frozen', 'moved', 'cleaning')) BEGIN
  SELECT RAISE(ABORT, 'account_moving');
END;
--> statement-breakpoint
CREATE TRIGGER inbound_events_freeze_delete BEFORE DELETE ON inbound_events
WHEN EXISTS (SELECT 1 FROM account_freezes WHERE account_id = OLD.account_id AND state IN ('frozen', 'moved')) BEGIN
  SELECT RAISE(ABORT, 'account_moving');
END;
--> statement-breakpoint
CREATE TRIGGER inbound_event_results_freeze_insert BEFORE INSERT ON inbound_event_results
WHEN EXISTS (SELECT 1 FROM account_freezes WHERE account_id = NEW.account_id AND state IN ('frozen', 'moved', 'cleaning')) BEGIN
  SELECT RAISE(ABORT, 'account_moving');
END;
--> statement-breakpoint
CREATE TRIGGER inbound_event_results_freeze_update BEFORE UPDATE ON inbound_event_results
WHEN EXISTS (SELECT 1 FROM account_freezes WHERE account_id = NEW.account_id AND state IN ('frozen', 'moved', 'cleaning')) BEGIN
  SELECT RAISE(ABORT, 'account_moving');
END;
--> statement-breakpoint
CREATE TRIGGER inbound_event_results_freeze_delete BEFORE DELETE ON inbound_event_results
WHEN EXISTS (SELECT 1 FROM account_freezes WHERE account_id = OLD.account_id AND state IN ('frozen', 'moved')) BEGIN
  SELECT RAISE(ABORT, 'account_moving');
END;
--> statement-breakpoint
CREATE TRIGGER account_event_storage_freeze_insert BEFORE INSERT ON account_event_storage
WHEN EXISTS (SELECT 1 FROM account_freezes WHERE account_id = NEW.account_id AND state IN ('frozen', 'moved', 'cleaning')) BEGIN
  SELECT RAISE(ABORT, 'account_moving');
END;
--> statement-breakpoint
CREATE TRIGGER account_event_storage_freeze_update BEFORE UPDATE ON account_event_storage
WHEN EXISTS (SELECT 1 FROM account_freezes WHERE account_id = NEW.account_id AND state IN ('frozen', 'moved')) BEGIN
  SELECT RAISE(ABORT, 'account_moving');
END;
--> statement-breakpoint
CREATE TRIGGER account_event_storage_freeze_delete BEFORE DELETE ON account_event_storage
WHEN EXISTS (SELECT 1 FROM account_freezes WHERE account_id = OLD.account_id AND state IN ('frozen', 'moved')) BEGIN
  SELECT RAISE(ABORT, 'account_moving');
END;
--> statement-breakpoint
CREATE TRIGGER webhook_event_storage_freeze_insert BEFORE INSERT ON webhook_event_storage
WHEN EXISTS (SELECT 1 FROM account_freezes WHERE account_id = NEW.account_id AND state IN ('frozen', 'moved', 'cleaning')) BEGIN
  SELECT RAISE(ABORT, 'account_moving');
END;
--> statement-breakpoint
CREATE TRIGGER webhook_event_storage_freeze_update BEFORE UPDATE ON webhook_event_storage
WHEN EXISTS (SELECT 1 FROM account_freezes WHERE account_id = NEW.account_id AND state IN ('frozen', 'moved')) BEGIN
  SELECT RAISE(ABORT, 'account_moving');
END;
--> statement-breakpoint
CREATE TRIGGER webhook_event_storage_freeze_delete BEFORE DELETE ON webhook_event_storage
WHEN EXISTS (SELECT 1 FROM account_freezes WHERE account_id = OLD.account_id AND state IN ('frozen', 'moved')) BEGIN
  SELECT RAISE(ABORT, 'account_moving');
END;
--> statement-breakpoint
CREATE TRIGGER webhook_rotations_freeze_insert BEFORE INSERT ON webhook_rotations
WHEN EXISTS (SELECT 1 FROM account_freezes WHERE account_id = NEW.account_id AND state IN ('frozen', 'moved', 'cleaning')) BEGIN
  SELECT RAISE(ABORT, 'account_moving');
END;
--> statement-breakpoint
CREATE TRIGGER webhook_rotations_freeze_update BEFORE UPDATE ON webhook_rotations
WHEN EXISTS (SELECT 1 FROM account_freezes WHERE account_id = NEW.account_id AND state IN ('frozen', 'moved', 'cleaning')) BEGIN
  SELECT RAISE(ABORT, 'account_moving');
END;
--> statement-breakpoint
CREATE TRIGGER webhook_rotations_freeze_delete BEFORE DELETE ON webhook_rotations
WHEN EXISTS (SELECT 1 FROM account_freezes WHERE account_id = OLD.account_id AND state IN ('frozen', 'moved')) BEGIN
  SELECT RAISE(ABORT, 'account_moving');
END;
--> statement-breakpoint
CREATE TRIGGER webhook_endpoints_freeze_insert BEFORE INSERT ON webhook_endpoints
WHEN EXISTS (SELECT 1 FROM account_freezes WHERE account_id = NEW.account_id AND state IN ('frozen', 'moved', 'cleaning')) BEGIN
  SELECT RAISE(ABORT, 'account_moving');
END;
--> statement-breakpoint
CREATE TRIGGER webhook_endpoints_freeze_update BEFORE UPDATE ON webhook_endpoints
WHEN EXISTS (SELECT 1 FROM account_freezes WHERE account_id = NEW.account_id AND state IN ('frozen', 'moved', 'cleaning')) BEGIN
  SELECT RAISE(ABORT, 'account_moving');
END;
--> statement-breakpoint
CREATE TRIGGER webhook_endpoints_freeze_delete BEFORE DELETE ON webhook_endpoints
WHEN EXISTS (SELECT 1 FROM account_freezes WHERE account_id = OLD.account_id AND state IN ('frozen', 'moved')) BEGIN
  SELECT RAISE(ABORT, 'account_moving');
END;
--> statement-breakpoint
CREATE TRIGGER webhook_deliveries_freeze_insert BEFORE INSERT ON webhook_deliveries
WHEN EXISTS (SELECT 1 FROM account_freezes WHERE account_id = NEW.account_id AND state IN ('frozen', 'moved', 'cleaning')) BEGIN
  SELECT RAISE(ABORT, 'account_moving');
END;
--> statement-breakpoint
CREATE TRIGGER webhook_deliveries_freeze_update BEFORE UPDATE ON webhook_deliveries
WHEN EXISTS (SELECT 1 FROM account_freezes WHERE account_id = NEW.account_id AND state IN ('frozen', 'moved', 'cleaning')) BEGIN
  SELECT RAISE(ABORT, 'account_moving');
END;
--> statement-breakpoint
CREATE TRIGGER webhook_deliveries_freeze_delete BEFORE DELETE ON webhook_deliveries
WHEN EXISTS (SELECT 1 FROM account_freezes WHERE account_id = OLD.account_id AND state IN ('frozen', 'moved')) BEGIN
  SELECT RAISE(ABORT, 'account_moving');
END;
--> statement-breakpoint
CREATE TRIGGER webhook_attempts_freeze_insert BEFORE INSERT ON webhook_attempts
WHEN EXISTS (SELECT 1 FROM account_freezes WHERE account_id = NEW.account_id AND state IN ('frozen', 'moved', 'cleaning')) BEGIN
  SELECT RAISE(ABORT, 'account_moving');
END;
--> statement-breakpoint
CREATE TRIGGER webhook_attempts_freeze_update BEFORE UPDATE ON webhook_attempts
WHEN EXISTS (SELECT 1 FROM account_freezes WHERE account_id = NEW.account_id AND state IN ('frozen', 'moved', 'cleaning')) BEGIN
  SELECT RAISE(ABORT, 'account_moving');
END;
--> statement-breakpoint
CREATE TRIGGER webhook_attempts_freeze_delete BEFORE DELETE ON webhook_attempts
WHEN EXISTS (SELECT 1 FROM account_freezes WHERE account_id = OLD.account_id AND state IN ('frozen', 'moved')) BEGIN
  SELECT RAISE(ABORT, 'account_moving');
END;
--> statement-breakpoint
CREATE TRIGGER idempotency_keys_freeze_insert BEFORE INSERT ON idempotency_keys
WHEN EXISTS (SELECT 1 FROM account_freezes WHERE account_id = NEW.account_id AND state IN ('frozen', 'moved', 'cleaning')) BEGIN
  SELECT RAISE(ABORT, 'account_moving');
END;
--> statement-breakpoint
CREATE TRIGGER idempotency_keys_freeze_update BEFORE UPDATE ON idempotency_keys
WHEN EXISTS (SELECT 1 FROM account_freezes WHERE account_id = NEW.account_id AND state IN ('frozen', 'moved', 'cleaning')) BEGIN
  SELECT RAISE(ABORT, 'account_moving');
END;
--> statement-breakpoint
CREATE TRIGGER idempotency_keys_freeze_delete BEFORE DELETE ON idempotency_keys
WHEN EXISTS (SELECT 1 FROM account_freezes WHERE account_id = OLD.account_id AND state IN ('frozen', 'moved')) BEGIN
  SELECT RAISE(ABORT, 'account_moving');
END;
--> statement-breakpoint
CREATE TRIGGER panel_sessions_freeze_insert BEFORE INSERT ON panel_sessions
WHEN EXISTS (SELECT 1 FROM account_freezes WHERE account_id = NEW.account_id AND state IN ('frozen', 'moved', 'cleaning')) BEGIN
  SELECT RAISE(ABORT, 'account_moving');
END;
--> statement-breakpoint
CREATE TRIGGER panel_sessions_freeze_update BEFORE UPDATE ON panel_sessions
WHEN EXISTS (SELECT 1 FROM account_freezes WHERE account_id = NEW.account_id AND state IN ('frozen', 'moved', 'cleaning')) BEGIN
  SELECT RAISE(ABORT, 'account_moving');
END;
--> statement-breakpoint
CREATE TRIGGER panel_sessions_freeze_delete BEFORE DELETE ON panel_sessions
WHEN EXISTS (SELECT 1 FROM account_freezes WHERE account_id = OLD.account_id AND state IN ('frozen', 'moved')) BEGIN
  SELECT RAISE(ABORT, 'account_moving');
END;
--> statement-breakpoint
CREATE TRIGGER journal_entries_freeze_insert BEFORE INSERT ON journal_entries
WHEN EXISTS (SELECT 1 FROM account_freezes WHERE account_id = NEW.account_id AND state IN ('frozen', 'moved', 'cleaning')) BEGIN
  SELECT RAISE(ABORT, 'account_moving');
END;
--> statement-breakpoint
CREATE TRIGGER journal_entries_freeze_update BEFORE UPDATE ON journal_entries
WHEN EXISTS (SELECT 1 FROM account_freezes WHERE account_id = NEW.account_id AND state IN ('frozen', 'moved', 'cleaning')) BEGIN
  SELECT RAISE(ABORT, 'account_moving');
END;
--> statement-breakpoint
CREATE TRIGGER journal_entries_freeze_delete BEFORE DELETE ON journal_entries
WHEN EXISTS (SELECT 1 FROM account_freezes WHERE account_id = OLD.account_id AND state IN ('frozen', 'moved')) BEGIN
  SELECT RAISE(ABORT, 'account_moving');
END;
--> statement-breakpoint
CREATE TRIGGER imports_freeze_insert BEFORE INSERT ON imports
WHEN EXISTS (SELECT 1 FROM account_freezes WHERE account_id = NEW.account_id AND state IN ('frozen', 'moved', 'cleaning')) BEGIN
  SELECT RAISE(ABORT, 'account_moving');
END;
--> statement-breakpoint
CREATE TRIGGER imports_freeze_update BEFORE UPDATE ON imports
WHEN EXISTS (SELECT 1 FROM account_freezes WHERE account_id = NEW.account_id AND state IN ('frozen', 'moved', 'cleaning')) BEGIN
  SELECT RAISE(ABORT, 'account_moving');
END;
--> statement-breakpoint
CREATE TRIGGER imports_freeze_delete BEFORE DELETE ON imports
WHEN EXISTS (SELECT 1 FROM account_freezes WHERE account_id = OLD.account_id AND state IN ('frozen', 'moved')) BEGIN
  SELECT RAISE(ABORT, 'account_moving');
END;
--> statement-breakpoint
CREATE TRIGGER import_chunks_freeze_insert BEFORE INSERT ON import_chunks
WHEN EXISTS (SELECT 1 FROM account_freezes WHERE account_id = (SELECT account_id FROM imports WHERE id = NEW.import_id) AND state IN ('frozen', 'moved', 'cleaning')) BEGIN
  SELECT RAISE(ABORT, 'account_moving');
END;
--> statement-breakpoint
CREATE TRIGGER import_chunks_freeze_update BEFORE UPDATE ON import_chunks
WHEN EXISTS (SELECT 1 FROM account_freezes WHERE account_id = (SELECT account_id FROM imports WHERE id = NEW.import_id) AND state IN ('frozen', 'moved', 'cleaning')) BEGIN
  SELECT RAISE(ABORT, 'account_moving');
END;
--> statement-breakpoint
CREATE TRIGGER import_chunks_freeze_delete BEFORE DELETE ON import_chunks
WHEN EXISTS (SELECT 1 FROM account_freezes WHERE account_id = (SELECT account_id FROM imports WHERE id = OLD.import_id) AND state IN ('frozen', 'moved')) BEGIN
  SELECT RAISE(ABORT, 'account_moving');
END;
