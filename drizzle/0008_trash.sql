DROP INDEX `contacts_company_idx`;--> statement-breakpoint
ALTER TABLE `contacts` ADD `deleted_at` integer;--> statement-breakpoint
CREATE INDEX `contacts_created_trash_idx` ON `contacts` (`account_id`,`created_at`,`id`) WHERE "contacts"."deleted_at" is not null;--> statement-breakpoint
CREATE INDEX `contacts_name_trash_idx` ON `contacts` (`account_id`,`name_norm`,`id`) WHERE "contacts"."deleted_at" is not null;--> statement-breakpoint
CREATE INDEX `contacts_purge_idx` ON `contacts` (`deleted_at`) WHERE "contacts"."deleted_at" is not null;--> statement-breakpoint
CREATE INDEX `contacts_company_idx` ON `contacts` (`account_id`,`company_id`,`deleted_at`);--> statement-breakpoint
DROP INDEX `deals_company_idx`;--> statement-breakpoint
ALTER TABLE `deals` ADD `deleted_at` integer;--> statement-breakpoint
CREATE INDEX `deals_created_trash_idx` ON `deals` (`account_id`,`created_at`,`id`) WHERE "deals"."deleted_at" is not null;--> statement-breakpoint
CREATE INDEX `deals_updated_trash_idx` ON `deals` (`account_id`,`updated_at`,`id`) WHERE "deals"."deleted_at" is not null;--> statement-breakpoint
CREATE INDEX `deals_name_trash_idx` ON `deals` (`account_id`,`name_norm`,`id`) WHERE "deals"."deleted_at" is not null;--> statement-breakpoint
CREATE INDEX `deals_purge_idx` ON `deals` (`deleted_at`) WHERE "deals"."deleted_at" is not null;--> statement-breakpoint
CREATE INDEX `deals_company_idx` ON `deals` (`account_id`,`company_id`,`status`,`deleted_at`);--> statement-breakpoint
ALTER TABLE `companies` ADD `deleted_at` integer;--> statement-breakpoint
CREATE INDEX `companies_created_trash_idx` ON `companies` (`account_id`,`created_at`,`id`) WHERE "companies"."deleted_at" is not null;--> statement-breakpoint
CREATE INDEX `companies_name_trash_idx` ON `companies` (`account_id`,`name_norm`,`id`) WHERE "companies"."deleted_at" is not null;--> statement-breakpoint
CREATE INDEX `companies_purge_idx` ON `companies` (`deleted_at`) WHERE "companies"."deleted_at" is not null;--> statement-breakpoint
ALTER TABLE `tasks` ADD `deleted_at` integer;--> statement-breakpoint
CREATE INDEX `tasks_created_trash_idx` ON `tasks` (`account_id`,`created_at`,`id`) WHERE "tasks"."deleted_at" is not null;--> statement-breakpoint
CREATE INDEX `tasks_updated_trash_idx` ON `tasks` (`account_id`,`updated_at`,`id`) WHERE "tasks"."deleted_at" is not null;--> statement-breakpoint
CREATE INDEX `tasks_due_trash_idx` ON `tasks` (`account_id`,`due_date`,`id`) WHERE "tasks"."deleted_at" is not null;--> statement-breakpoint
CREATE INDEX `tasks_deal_trash_idx` ON `tasks` (`account_id`,`deal_id`,`id`) WHERE "tasks"."deleted_at" is not null;--> statement-breakpoint
CREATE INDEX `tasks_purge_idx` ON `tasks` (`deleted_at`) WHERE "tasks"."deleted_at" is not null;--> statement-breakpoint
ALTER TABLE `users` ADD `deleted_at` integer;--> statement-breakpoint
CREATE INDEX `users_created_trash_idx` ON `users` (`account_id`,`created_at`,`id`) WHERE "users"."deleted_at" is not null;--> statement-breakpoint
CREATE INDEX `users_name_trash_idx` ON `users` (`account_id`,`name_norm`,`id`) WHERE "users"."deleted_at" is not null;--> statement-breakpoint
CREATE INDEX `users_purge_idx` ON `users` (`deleted_at`) WHERE "users"."deleted_at" is not null;--> statement-breakpoint
CREATE INDEX `inbound_event_results_contact_idx` ON `inbound_event_results` (`account_id`,`contact_id`);--> statement-breakpoint
CREATE INDEX `inbound_event_results_company_idx` ON `inbound_event_results` (`account_id`,`company_id`);--> statement-breakpoint
CREATE INDEX `inbound_event_results_deal_idx` ON `inbound_event_results` (`account_id`,`deal_id`);--> statement-breakpoint
-- Hand-written: a category's task_count counts its live tasks only. A task counts from its insert
-- until it goes to the trash, again once restored, and not while trashed or when purged from the
-- trash (the delete trigger of 0004 would count it out twice).
DROP TRIGGER task_categories_count_insert;
--> statement-breakpoint
CREATE TRIGGER task_categories_count_insert AFTER INSERT ON tasks WHEN new.deleted_at IS NULL BEGIN
  UPDATE task_categories SET task_count = task_count + 1 WHERE account_id = new.account_id AND id = new.category_id;
END;
--> statement-breakpoint
DROP TRIGGER task_categories_count_delete;
--> statement-breakpoint
CREATE TRIGGER task_categories_count_delete AFTER DELETE ON tasks WHEN old.deleted_at IS NULL BEGIN
  UPDATE task_categories SET task_count = task_count - 1 WHERE account_id = old.account_id AND id = old.category_id;
END;
--> statement-breakpoint
DROP TRIGGER task_categories_count_update;
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
-- Hand-written: a live task always has a live deal. A task create checks its deal in its first
-- round trip and writes in its second; should the deal go to the trash in between, the insert is
-- refused here, with the message of a foreign key failure, so the API answers the same 422 as for
-- a deal that is not there.
CREATE TRIGGER tasks_live_deal BEFORE INSERT ON tasks
WHEN new.deleted_at IS NULL
  AND (SELECT deleted_at FROM deals WHERE account_id = new.account_id AND id = new.deal_id) IS NOT NULL BEGIN
  SELECT RAISE(ABORT, 'FOREIGN KEY constraint failed: the deal is in the trash');
END;
