ALTER TABLE `task_categories` ADD `task_count` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
UPDATE `task_categories` SET `task_count` = (
  SELECT count(*) FROM `tasks` WHERE `tasks`.`account_id` = `task_categories`.`account_id` AND `tasks`.`category_id` = `task_categories`.`id`
);
--> statement-breakpoint
CREATE TRIGGER task_categories_count_insert AFTER INSERT ON tasks BEGIN
  UPDATE task_categories SET task_count = task_count + 1 WHERE account_id = new.account_id AND id = new.category_id;
END;
--> statement-breakpoint
CREATE TRIGGER task_categories_count_delete AFTER DELETE ON tasks BEGIN
  UPDATE task_categories SET task_count = task_count - 1 WHERE account_id = old.account_id AND id = old.category_id;
END;
--> statement-breakpoint
CREATE TRIGGER task_categories_count_update AFTER UPDATE OF account_id, category_id ON tasks
WHEN old.account_id IS NOT new.account_id OR old.category_id IS NOT new.category_id BEGIN
  UPDATE task_categories SET task_count = task_count - 1 WHERE account_id = old.account_id AND id = old.category_id;
  UPDATE task_categories SET task_count = task_count + 1 WHERE account_id = new.account_id AND id = new.category_id;
END;
