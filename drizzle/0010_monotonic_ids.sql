-- Hand-edited from drizzle-kit's output: every table with an integer id becomes
-- INTEGER PRIMARY KEY AUTOINCREMENT, so an id is never given again once its row is gone (erased,
-- purged, deleted). Without it SQLite hands out max(id) + 1, and a client's retried
-- `DELETE /v1/contacts/{id}?erase=true` could erase the next person created. Each table is rebuilt
-- with its rows and ids (sqlite_sequence starts at the highest id kept), its indexes and foreign keys.
--
-- * D1 keeps foreign keys on and runs a migration in one transaction: deferring them lets every
--   table point at a table while it is swapped, and they are checked again at commit.
-- * The triggers (search, created_at order, task counts, a task's live deal) and the two search
--   views are dropped first and created again last, exactly as 0003, 0006 and 0008 left them: a
--   rename fails while a view or trigger names a table that is gone, and a dropped table's implicit
--   delete must not fire them (a task's delete would count its category down). The FTS5 tables
--   are kept as they are: their rowids (account_id * 2^32 + id) do not change.
PRAGMA defer_foreign_keys = on;
--> statement-breakpoint
DROP TRIGGER `users_search_insert`;
--> statement-breakpoint
DROP TRIGGER `users_search_update`;
--> statement-breakpoint
DROP TRIGGER `users_search_delete`;
--> statement-breakpoint
DROP TRIGGER `contacts_search_insert`;
--> statement-breakpoint
DROP TRIGGER `contacts_search_update`;
--> statement-breakpoint
DROP TRIGGER `contacts_search_delete`;
--> statement-breakpoint
DROP TRIGGER `companies_search_insert`;
--> statement-breakpoint
DROP TRIGGER `companies_search_update`;
--> statement-breakpoint
DROP TRIGGER `companies_search_delete`;
--> statement-breakpoint
DROP TRIGGER `users_created_order_insert`;
--> statement-breakpoint
DROP TRIGGER `users_created_order_update`;
--> statement-breakpoint
DROP TRIGGER `contacts_created_order_insert`;
--> statement-breakpoint
DROP TRIGGER `contacts_created_order_update`;
--> statement-breakpoint
DROP TRIGGER `companies_created_order_insert`;
--> statement-breakpoint
DROP TRIGGER `companies_created_order_update`;
--> statement-breakpoint
DROP TRIGGER `task_categories_count_insert`;
--> statement-breakpoint
DROP TRIGGER `task_categories_count_delete`;
--> statement-breakpoint
DROP TRIGGER `task_categories_count_update`;
--> statement-breakpoint
DROP TRIGGER `tasks_live_deal`;
--> statement-breakpoint
DROP VIEW `search_grams`;
--> statement-breakpoint
DROP VIEW `search_text`;
--> statement-breakpoint
CREATE TABLE `__new_accounts` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`name` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
INSERT INTO `__new_accounts`("id", "name", "created_at") SELECT "id", "name", "created_at" FROM `accounts`;
--> statement-breakpoint
DROP TABLE `accounts`;
--> statement-breakpoint
ALTER TABLE `__new_accounts` RENAME TO `accounts`;
--> statement-breakpoint
CREATE TABLE `__new_api_keys` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`account_id` integer NOT NULL,
	`key_hash` text NOT NULL,
	`created_at` integer NOT NULL,
	`revoked_at` integer,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
INSERT INTO `__new_api_keys`("id", "account_id", "key_hash", "created_at", "revoked_at") SELECT "id", "account_id", "key_hash", "created_at", "revoked_at" FROM `api_keys`;
--> statement-breakpoint
DROP TABLE `api_keys`;
--> statement-breakpoint
ALTER TABLE `__new_api_keys` RENAME TO `api_keys`;
--> statement-breakpoint
CREATE UNIQUE INDEX `api_keys_hash_uq` ON `api_keys` (`key_hash`);
--> statement-breakpoint
CREATE INDEX `api_keys_account_idx` ON `api_keys` (`account_id`);
--> statement-breakpoint
CREATE TABLE `__new_companies` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
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
	`deleted_at` integer,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`account_id`,`owner_id`) REFERENCES `users`(`account_id`,`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
INSERT INTO `__new_companies`("id", "account_id", "name", "name_norm", "cnpj", "owner_id", "segment", "segment_norm", "observations", "created_at", "updated_at", "deleted_at") SELECT "id", "account_id", "name", "name_norm", "cnpj", "owner_id", "segment", "segment_norm", "observations", "created_at", "updated_at", "deleted_at" FROM `companies`;
--> statement-breakpoint
DROP TABLE `companies`;
--> statement-breakpoint
ALTER TABLE `__new_companies` RENAME TO `companies`;
--> statement-breakpoint
CREATE UNIQUE INDEX `companies_account_id_uq` ON `companies` (`account_id`,`id`);
--> statement-breakpoint
CREATE UNIQUE INDEX `companies_cnpj_uq` ON `companies` (`account_id`,`cnpj`);
--> statement-breakpoint
CREATE INDEX `companies_created_idx` ON `companies` (`account_id`,`created_at`,`id`);
--> statement-breakpoint
CREATE INDEX `companies_name_idx` ON `companies` (`account_id`,`name_norm`,`id`);
--> statement-breakpoint
CREATE INDEX `companies_owner_idx` ON `companies` (`account_id`,`owner_id`);
--> statement-breakpoint
CREATE INDEX `companies_segment_idx` ON `companies` (`account_id`,`segment_norm`);
--> statement-breakpoint
CREATE INDEX `companies_created_trash_idx` ON `companies` (`account_id`,`created_at`,`id`) WHERE "companies"."deleted_at" is not null;
--> statement-breakpoint
CREATE INDEX `companies_name_trash_idx` ON `companies` (`account_id`,`name_norm`,`id`) WHERE "companies"."deleted_at" is not null;
--> statement-breakpoint
CREATE INDEX `companies_purge_idx` ON `companies` (`deleted_at`) WHERE "companies"."deleted_at" is not null;
--> statement-breakpoint
CREATE TABLE `__new_contacts` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
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
	`deleted_at` integer,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`account_id`,`company_id`) REFERENCES `companies`(`account_id`,`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`account_id`,`owner_id`) REFERENCES `users`(`account_id`,`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
INSERT INTO `__new_contacts`("id", "account_id", "name", "name_norm", "email", "email_norm", "phone", "company_id", "owner_id", "custom_fields", "created_at", "updated_at", "deleted_at") SELECT "id", "account_id", "name", "name_norm", "email", "email_norm", "phone", "company_id", "owner_id", "custom_fields", "created_at", "updated_at", "deleted_at" FROM `contacts`;
--> statement-breakpoint
DROP TABLE `contacts`;
--> statement-breakpoint
ALTER TABLE `__new_contacts` RENAME TO `contacts`;
--> statement-breakpoint
CREATE UNIQUE INDEX `contacts_account_id_uq` ON `contacts` (`account_id`,`id`);
--> statement-breakpoint
CREATE INDEX `contacts_created_idx` ON `contacts` (`account_id`,`created_at`,`id`);
--> statement-breakpoint
CREATE INDEX `contacts_name_idx` ON `contacts` (`account_id`,`name_norm`,`id`);
--> statement-breakpoint
CREATE INDEX `contacts_email_idx` ON `contacts` (`account_id`,`email_norm`);
--> statement-breakpoint
CREATE INDEX `contacts_phone_idx` ON `contacts` (`account_id`,`phone`);
--> statement-breakpoint
CREATE INDEX `contacts_company_idx` ON `contacts` (`account_id`,`company_id`,`deleted_at`);
--> statement-breakpoint
CREATE INDEX `contacts_owner_idx` ON `contacts` (`account_id`,`owner_id`);
--> statement-breakpoint
CREATE INDEX `contacts_created_trash_idx` ON `contacts` (`account_id`,`created_at`,`id`) WHERE "contacts"."deleted_at" is not null;
--> statement-breakpoint
CREATE INDEX `contacts_name_trash_idx` ON `contacts` (`account_id`,`name_norm`,`id`) WHERE "contacts"."deleted_at" is not null;
--> statement-breakpoint
CREATE INDEX `contacts_purge_idx` ON `contacts` (`deleted_at`) WHERE "contacts"."deleted_at" is not null;
--> statement-breakpoint
CREATE TABLE `__new_deals` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
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
	`deleted_at` integer,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`account_id`,`company_id`) REFERENCES `companies`(`account_id`,`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`account_id`,`contact_id`) REFERENCES `contacts`(`account_id`,`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`account_id`,`owner_id`) REFERENCES `users`(`account_id`,`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
INSERT INTO `__new_deals`("id", "account_id", "name", "name_norm", "company_id", "contact_id", "owner_id", "status", "value", "custom_fields", "created_at", "updated_at", "deleted_at") SELECT "id", "account_id", "name", "name_norm", "company_id", "contact_id", "owner_id", "status", "value", "custom_fields", "created_at", "updated_at", "deleted_at" FROM `deals`;
--> statement-breakpoint
DROP TABLE `deals`;
--> statement-breakpoint
ALTER TABLE `__new_deals` RENAME TO `deals`;
--> statement-breakpoint
CREATE UNIQUE INDEX `deals_account_id_uq` ON `deals` (`account_id`,`id`);
--> statement-breakpoint
CREATE INDEX `deals_created_idx` ON `deals` (`account_id`,`created_at`,`id`);
--> statement-breakpoint
CREATE INDEX `deals_updated_idx` ON `deals` (`account_id`,`updated_at`,`id`);
--> statement-breakpoint
CREATE INDEX `deals_name_idx` ON `deals` (`account_id`,`name_norm`,`id`);
--> statement-breakpoint
CREATE INDEX `deals_company_idx` ON `deals` (`account_id`,`company_id`,`status`,`deleted_at`);
--> statement-breakpoint
CREATE INDEX `deals_contact_idx` ON `deals` (`account_id`,`contact_id`);
--> statement-breakpoint
CREATE INDEX `deals_owner_idx` ON `deals` (`account_id`,`owner_id`);
--> statement-breakpoint
CREATE INDEX `deals_status_idx` ON `deals` (`account_id`,`status`);
--> statement-breakpoint
CREATE INDEX `deals_created_trash_idx` ON `deals` (`account_id`,`created_at`,`id`) WHERE "deals"."deleted_at" is not null;
--> statement-breakpoint
CREATE INDEX `deals_updated_trash_idx` ON `deals` (`account_id`,`updated_at`,`id`) WHERE "deals"."deleted_at" is not null;
--> statement-breakpoint
CREATE INDEX `deals_name_trash_idx` ON `deals` (`account_id`,`name_norm`,`id`) WHERE "deals"."deleted_at" is not null;
--> statement-breakpoint
CREATE INDEX `deals_purge_idx` ON `deals` (`deleted_at`) WHERE "deals"."deleted_at" is not null;
--> statement-breakpoint
CREATE TABLE `__new_inbound_events` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`account_id` integer NOT NULL,
	`webhook_id` integer NOT NULL,
	`mode` text NOT NULL,
	`status` text DEFAULT 'pending' NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`error` text,
	`payload` text NOT NULL,
	`headers` text NOT NULL,
	`idempotency_key` text,
	`received_at` integer NOT NULL,
	`queued_at` integer NOT NULL,
	`processed_at` integer,
	`preview` text,
	`warnings` text DEFAULT '[]' NOT NULL,
	`rejection` text,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`account_id`,`webhook_id`) REFERENCES `inbound_webhooks`(`account_id`,`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
INSERT INTO `__new_inbound_events`("id", "account_id", "webhook_id", "mode", "status", "attempts", "error", "payload", "headers", "idempotency_key", "received_at", "queued_at", "processed_at", "preview", "warnings", "rejection") SELECT "id", "account_id", "webhook_id", "mode", "status", "attempts", "error", "payload", "headers", "idempotency_key", "received_at", "queued_at", "processed_at", "preview", "warnings", "rejection" FROM `inbound_events`;
--> statement-breakpoint
DROP TABLE `inbound_events`;
--> statement-breakpoint
ALTER TABLE `__new_inbound_events` RENAME TO `inbound_events`;
--> statement-breakpoint
CREATE UNIQUE INDEX `inbound_events_account_id_uq` ON `inbound_events` (`account_id`,`id`);
--> statement-breakpoint
CREATE UNIQUE INDEX `inbound_events_idempotency_uq` ON `inbound_events` (`webhook_id`,`idempotency_key`);
--> statement-breakpoint
CREATE INDEX `inbound_events_webhook_idx` ON `inbound_events` (`account_id`,`webhook_id`,`received_at`,`id`);
--> statement-breakpoint
CREATE INDEX `inbound_events_status_idx` ON `inbound_events` (`account_id`,`webhook_id`,`status`,`received_at`,`id`);
--> statement-breakpoint
CREATE INDEX `inbound_events_mode_idx` ON `inbound_events` (`account_id`,`webhook_id`,`mode`,`received_at`,`id`);
--> statement-breakpoint
CREATE INDEX `inbound_events_queue_idx` ON `inbound_events` (`status`,`queued_at`);
--> statement-breakpoint
CREATE TABLE `__new_inbound_webhooks` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`account_id` integer NOT NULL,
	`name` text NOT NULL,
	`token` text NOT NULL,
	`enabled` integer DEFAULT true NOT NULL,
	`mode` text DEFAULT 'production' NOT NULL,
	`secret` text,
	`fields` text NOT NULL,
	`flows` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
INSERT INTO `__new_inbound_webhooks`("id", "account_id", "name", "token", "enabled", "mode", "secret", "fields", "flows", "created_at", "updated_at") SELECT "id", "account_id", "name", "token", "enabled", "mode", "secret", "fields", "flows", "created_at", "updated_at" FROM `inbound_webhooks`;
--> statement-breakpoint
DROP TABLE `inbound_webhooks`;
--> statement-breakpoint
ALTER TABLE `__new_inbound_webhooks` RENAME TO `inbound_webhooks`;
--> statement-breakpoint
CREATE UNIQUE INDEX `inbound_webhooks_account_id_uq` ON `inbound_webhooks` (`account_id`,`id`);
--> statement-breakpoint
CREATE UNIQUE INDEX `inbound_webhooks_token_uq` ON `inbound_webhooks` (`token`);
--> statement-breakpoint
CREATE INDEX `inbound_webhooks_created_idx` ON `inbound_webhooks` (`account_id`,`created_at`,`id`);
--> statement-breakpoint
CREATE TABLE `__new_panel_sessions` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`token_hash` text NOT NULL,
	`account_id` integer NOT NULL,
	`api_key_id` integer NOT NULL,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`api_key_id`) REFERENCES `api_keys`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
INSERT INTO `__new_panel_sessions`("id", "token_hash", "account_id", "api_key_id", "created_at", "expires_at") SELECT "id", "token_hash", "account_id", "api_key_id", "created_at", "expires_at" FROM `panel_sessions`;
--> statement-breakpoint
DROP TABLE `panel_sessions`;
--> statement-breakpoint
ALTER TABLE `__new_panel_sessions` RENAME TO `panel_sessions`;
--> statement-breakpoint
CREATE UNIQUE INDEX `panel_sessions_token_uq` ON `panel_sessions` (`token_hash`);
--> statement-breakpoint
CREATE INDEX `panel_sessions_expires_idx` ON `panel_sessions` (`expires_at`);
--> statement-breakpoint
CREATE TABLE `__new_task_categories` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`account_id` integer NOT NULL,
	`name` text NOT NULL,
	`name_norm` text NOT NULL,
	`created_at` integer NOT NULL,
	`task_count` integer DEFAULT 0 NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
INSERT INTO `__new_task_categories`("id", "account_id", "name", "name_norm", "created_at", "task_count") SELECT "id", "account_id", "name", "name_norm", "created_at", "task_count" FROM `task_categories`;
--> statement-breakpoint
DROP TABLE `task_categories`;
--> statement-breakpoint
ALTER TABLE `__new_task_categories` RENAME TO `task_categories`;
--> statement-breakpoint
CREATE UNIQUE INDEX `task_categories_account_id_uq` ON `task_categories` (`account_id`,`id`);
--> statement-breakpoint
CREATE UNIQUE INDEX `task_categories_name_uq` ON `task_categories` (`account_id`,`name_norm`);
--> statement-breakpoint
CREATE TABLE `__new_tasks` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`account_id` integer NOT NULL,
	`name` text NOT NULL,
	`deal_id` integer NOT NULL,
	`category_id` integer NOT NULL,
	`description` text,
	`due_date` integer,
	`completed_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`deleted_at` integer,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`account_id`,`deal_id`) REFERENCES `deals`(`account_id`,`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`account_id`,`category_id`) REFERENCES `task_categories`(`account_id`,`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
INSERT INTO `__new_tasks`("id", "account_id", "name", "deal_id", "category_id", "description", "due_date", "completed_at", "created_at", "updated_at", "deleted_at") SELECT "id", "account_id", "name", "deal_id", "category_id", "description", "due_date", "completed_at", "created_at", "updated_at", "deleted_at" FROM `tasks`;
--> statement-breakpoint
DROP TABLE `tasks`;
--> statement-breakpoint
ALTER TABLE `__new_tasks` RENAME TO `tasks`;
--> statement-breakpoint
CREATE UNIQUE INDEX `tasks_account_id_uq` ON `tasks` (`account_id`,`id`);
--> statement-breakpoint
CREATE INDEX `tasks_created_idx` ON `tasks` (`account_id`,`created_at`,`id`);
--> statement-breakpoint
CREATE INDEX `tasks_updated_idx` ON `tasks` (`account_id`,`updated_at`,`id`);
--> statement-breakpoint
CREATE INDEX `tasks_deal_idx` ON `tasks` (`account_id`,`deal_id`,`id`);
--> statement-breakpoint
CREATE INDEX `tasks_due_idx` ON `tasks` (`account_id`,`due_date`,`id`);
--> statement-breakpoint
CREATE INDEX `tasks_category_idx` ON `tasks` (`account_id`,`category_id`);
--> statement-breakpoint
CREATE INDEX `tasks_created_trash_idx` ON `tasks` (`account_id`,`created_at`,`id`) WHERE "tasks"."deleted_at" is not null;
--> statement-breakpoint
CREATE INDEX `tasks_updated_trash_idx` ON `tasks` (`account_id`,`updated_at`,`id`) WHERE "tasks"."deleted_at" is not null;
--> statement-breakpoint
CREATE INDEX `tasks_due_trash_idx` ON `tasks` (`account_id`,`due_date`,`id`) WHERE "tasks"."deleted_at" is not null;
--> statement-breakpoint
CREATE INDEX `tasks_deal_trash_idx` ON `tasks` (`account_id`,`deal_id`,`id`) WHERE "tasks"."deleted_at" is not null;
--> statement-breakpoint
CREATE INDEX `tasks_purge_idx` ON `tasks` (`deleted_at`) WHERE "tasks"."deleted_at" is not null;
--> statement-breakpoint
CREATE TABLE `__new_users` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`account_id` integer NOT NULL,
	`name` text NOT NULL,
	`name_norm` text NOT NULL,
	`email` text NOT NULL,
	`email_norm` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`deleted_at` integer,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
INSERT INTO `__new_users`("id", "account_id", "name", "name_norm", "email", "email_norm", "created_at", "updated_at", "deleted_at") SELECT "id", "account_id", "name", "name_norm", "email", "email_norm", "created_at", "updated_at", "deleted_at" FROM `users`;
--> statement-breakpoint
DROP TABLE `users`;
--> statement-breakpoint
ALTER TABLE `__new_users` RENAME TO `users`;
--> statement-breakpoint
CREATE UNIQUE INDEX `users_account_id_uq` ON `users` (`account_id`,`id`);
--> statement-breakpoint
CREATE UNIQUE INDEX `users_email_uq` ON `users` (`account_id`,`email_norm`);
--> statement-breakpoint
CREATE INDEX `users_created_idx` ON `users` (`account_id`,`created_at`,`id`);
--> statement-breakpoint
CREATE INDEX `users_name_idx` ON `users` (`account_id`,`name_norm`,`id`);
--> statement-breakpoint
CREATE INDEX `users_created_trash_idx` ON `users` (`account_id`,`created_at`,`id`) WHERE "users"."deleted_at" is not null;
--> statement-breakpoint
CREATE INDEX `users_name_trash_idx` ON `users` (`account_id`,`name_norm`,`id`) WHERE "users"."deleted_at" is not null;
--> statement-breakpoint
CREATE INDEX `users_purge_idx` ON `users` (`deleted_at`) WHERE "users"."deleted_at" is not null;
--> statement-breakpoint
CREATE VIEW search_text AS
  SELECT 'users.name' AS src, account_id, id, name_norm AS t FROM users
  UNION ALL SELECT 'contacts.name', account_id, id, name_norm FROM contacts
  UNION ALL SELECT 'companies.name', account_id, id, name_norm FROM companies
  UNION ALL SELECT 'companies.segment', account_id, id, segment_norm FROM companies;
--> statement-breakpoint
CREATE VIEW search_grams AS
  SELECT src, account_id, id, (
    SELECT group_concat(
      CAST(substr(b, k, w1) AS TEXT) || char(31, 31) || CAST(substr(b, k, w1 + w2) AS TEXT) || char(31), '')
    FROM (
      SELECT k, w1,
        CASE WHEN substr(b, k + w1, 1) < x'80' THEN 1 WHEN substr(b, k + w1, 1) < x'e0' THEN 2
          WHEN substr(b, k + w1, 1) < x'f0' THEN 3 ELSE 4 END AS w2
      FROM (
        SELECT key + 1 AS k,
          CASE WHEN substr(b, key + 1, 1) < x'80' THEN 1 WHEN substr(b, key + 1, 1) < x'e0' THEN 2
            WHEN substr(b, key + 1, 1) < x'f0' THEN 3 ELSE 4 END AS w1
        FROM json_each('[' || substr(replace(hex(zeroblob(length(b))), '00', ',0'), 2) || ']')
        WHERE substr(b, key + 1, 1) NOT BETWEEN x'80' AND x'bf'
      )
    )
  ) AS grams
  FROM (SELECT src, account_id, id, CAST(t AS BLOB) AS b FROM search_text);
--> statement-breakpoint
CREATE TRIGGER users_search_insert AFTER INSERT ON users BEGIN
  INSERT INTO users_search (rowid, name, name_grams) VALUES (
    new.account_id * 4294967296 + new.id, new.name_norm,
    (SELECT grams FROM search_grams WHERE src = 'users.name' AND account_id = new.account_id AND id = new.id)
  );
END;
--> statement-breakpoint
CREATE TRIGGER users_search_update AFTER UPDATE OF account_id, id, name_norm ON users BEGIN
  DELETE FROM users_search WHERE rowid = old.account_id * 4294967296 + old.id;
  INSERT INTO users_search (rowid, name, name_grams) VALUES (
    new.account_id * 4294967296 + new.id, new.name_norm,
    (SELECT grams FROM search_grams WHERE src = 'users.name' AND account_id = new.account_id AND id = new.id)
  );
END;
--> statement-breakpoint
CREATE TRIGGER users_search_delete AFTER DELETE ON users BEGIN
  DELETE FROM users_search WHERE rowid = old.account_id * 4294967296 + old.id;
END;
--> statement-breakpoint
CREATE TRIGGER contacts_search_insert AFTER INSERT ON contacts BEGIN
  INSERT INTO contacts_search (rowid, name, name_grams) VALUES (
    new.account_id * 4294967296 + new.id, new.name_norm,
    (SELECT grams FROM search_grams WHERE src = 'contacts.name' AND account_id = new.account_id AND id = new.id)
  );
END;
--> statement-breakpoint
CREATE TRIGGER contacts_search_update AFTER UPDATE OF account_id, id, name_norm ON contacts BEGIN
  DELETE FROM contacts_search WHERE rowid = old.account_id * 4294967296 + old.id;
  INSERT INTO contacts_search (rowid, name, name_grams) VALUES (
    new.account_id * 4294967296 + new.id, new.name_norm,
    (SELECT grams FROM search_grams WHERE src = 'contacts.name' AND account_id = new.account_id AND id = new.id)
  );
END;
--> statement-breakpoint
CREATE TRIGGER contacts_search_delete AFTER DELETE ON contacts BEGIN
  DELETE FROM contacts_search WHERE rowid = old.account_id * 4294967296 + old.id;
END;
--> statement-breakpoint
CREATE TRIGGER companies_search_insert AFTER INSERT ON companies BEGIN
  INSERT INTO companies_search (rowid, name, name_grams, segment, segment_grams) VALUES (
    new.account_id * 4294967296 + new.id, new.name_norm,
    (SELECT grams FROM search_grams WHERE src = 'companies.name' AND account_id = new.account_id AND id = new.id),
    new.segment_norm,
    (SELECT grams FROM search_grams WHERE src = 'companies.segment' AND account_id = new.account_id AND id = new.id)
  );
END;
--> statement-breakpoint
CREATE TRIGGER companies_search_update AFTER UPDATE OF account_id, id, name_norm, segment_norm ON companies BEGIN
  DELETE FROM companies_search WHERE rowid = old.account_id * 4294967296 + old.id;
  INSERT INTO companies_search (rowid, name, name_grams, segment, segment_grams) VALUES (
    new.account_id * 4294967296 + new.id, new.name_norm,
    (SELECT grams FROM search_grams WHERE src = 'companies.name' AND account_id = new.account_id AND id = new.id),
    new.segment_norm,
    (SELECT grams FROM search_grams WHERE src = 'companies.segment' AND account_id = new.account_id AND id = new.id)
  );
END;
--> statement-breakpoint
CREATE TRIGGER companies_search_delete AFTER DELETE ON companies BEGIN
  DELETE FROM companies_search WHERE rowid = old.account_id * 4294967296 + old.id;
END;
--> statement-breakpoint
CREATE TRIGGER users_created_order_insert AFTER INSERT ON users
WHEN (SELECT max(created_at) FROM users WHERE account_id = new.account_id) > new.created_at
  OR EXISTS (SELECT 1 FROM users WHERE id > new.id AND +account_id = new.account_id) BEGIN
  SELECT RAISE(ABORT, 'a new users row must be its account''s newest, by created_at and by id');
END;
--> statement-breakpoint
CREATE TRIGGER users_created_order_update BEFORE UPDATE OF created_at, id, account_id ON users
WHEN new.created_at IS NOT old.created_at OR new.id IS NOT old.id OR new.account_id IS NOT old.account_id BEGIN
  SELECT RAISE(ABORT, 'users.created_at, id and account_id never change');
END;
--> statement-breakpoint
CREATE TRIGGER contacts_created_order_insert AFTER INSERT ON contacts
WHEN (SELECT max(created_at) FROM contacts WHERE account_id = new.account_id) > new.created_at
  OR EXISTS (SELECT 1 FROM contacts WHERE id > new.id AND +account_id = new.account_id) BEGIN
  SELECT RAISE(ABORT, 'a new contacts row must be its account''s newest, by created_at and by id');
END;
--> statement-breakpoint
CREATE TRIGGER contacts_created_order_update BEFORE UPDATE OF created_at, id, account_id ON contacts
WHEN new.created_at IS NOT old.created_at OR new.id IS NOT old.id OR new.account_id IS NOT old.account_id BEGIN
  SELECT RAISE(ABORT, 'contacts.created_at, id and account_id never change');
END;
--> statement-breakpoint
CREATE TRIGGER companies_created_order_insert AFTER INSERT ON companies
WHEN (SELECT max(created_at) FROM companies WHERE account_id = new.account_id) > new.created_at
  OR EXISTS (SELECT 1 FROM companies WHERE id > new.id AND +account_id = new.account_id) BEGIN
  SELECT RAISE(ABORT, 'a new companies row must be its account''s newest, by created_at and by id');
END;
--> statement-breakpoint
CREATE TRIGGER companies_created_order_update BEFORE UPDATE OF created_at, id, account_id ON companies
WHEN new.created_at IS NOT old.created_at OR new.id IS NOT old.id OR new.account_id IS NOT old.account_id BEGIN
  SELECT RAISE(ABORT, 'companies.created_at, id and account_id never change');
END;
--> statement-breakpoint
CREATE TRIGGER task_categories_count_insert AFTER INSERT ON tasks WHEN new.deleted_at IS NULL BEGIN
  UPDATE task_categories SET task_count = task_count + 1 WHERE account_id = new.account_id AND id = new.category_id;
END;
--> statement-breakpoint
CREATE TRIGGER task_categories_count_delete AFTER DELETE ON tasks WHEN old.deleted_at IS NULL BEGIN
  UPDATE task_categories SET task_count = task_count - 1 WHERE account_id = old.account_id AND id = old.category_id;
END;
--> statement-breakpoint
CREATE TRIGGER task_categories_count_update AFTER UPDATE OF account_id, category_id, deleted_at ON tasks
WHEN old.account_id IS NOT new.account_id OR old.category_id IS NOT new.category_id
  OR (old.deleted_at IS NULL) IS NOT (new.deleted_at IS NULL) BEGIN
  UPDATE task_categories SET task_count = task_count - 1
  WHERE account_id = old.account_id AND id = old.category_id AND old.deleted_at IS NULL;
  UPDATE task_categories SET task_count = task_count + 1
  WHERE account_id = new.account_id AND id = new.category_id AND new.deleted_at IS NULL;
END;
--> statement-breakpoint
CREATE TRIGGER tasks_live_deal BEFORE INSERT ON tasks
WHEN new.deleted_at IS NULL
  AND (SELECT deleted_at FROM deals WHERE account_id = new.account_id AND id = new.deal_id) IS NOT NULL BEGIN
  SELECT RAISE(ABORT, 'FOREIGN KEY constraint failed: the deal is in the trash');
END;
--> statement-breakpoint
PRAGMA defer_foreign_keys = off;
