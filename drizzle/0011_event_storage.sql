CREATE TABLE `account_event_storage` (
	`account_id` integer PRIMARY KEY NOT NULL,
	`bytes` integer DEFAULT 0 NOT NULL,
	`events` integer DEFAULT 0 NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `inbound_events_received_idx` ON `inbound_events` (`received_at`);--> statement-breakpoint
-- What an event takes up: its stored text in bytes, plus 256 for its row and index entries (so a
-- flood of tiny events counts too). The same expression in the three triggers and the backfill.
INSERT INTO `account_event_storage` (`account_id`, `bytes`, `events`)
SELECT `account_id`, sum(256 + length(CAST(`payload` AS BLOB)) + length(CAST(`headers` AS BLOB)) + length(CAST(`warnings` AS BLOB)) + coalesce(length(CAST(`preview` AS BLOB)), 0) + coalesce(length(CAST(`rejection` AS BLOB)), 0) + coalesce(length(CAST(`error` AS BLOB)), 0)), count(*)
FROM `inbound_events` GROUP BY `account_id`;
--> statement-breakpoint
CREATE TRIGGER inbound_events_storage_insert AFTER INSERT ON inbound_events BEGIN
  INSERT INTO account_event_storage (account_id, bytes, events)
  VALUES (new.account_id, 256 + length(CAST(new.payload AS BLOB)) + length(CAST(new.headers AS BLOB)) + length(CAST(new.warnings AS BLOB)) + coalesce(length(CAST(new.preview AS BLOB)), 0) + coalesce(length(CAST(new.rejection AS BLOB)), 0) + coalesce(length(CAST(new.error AS BLOB)), 0), 1)
  ON CONFLICT (account_id) DO UPDATE SET bytes = bytes + excluded.bytes, events = events + 1;
END;
--> statement-breakpoint
CREATE TRIGGER inbound_events_storage_delete AFTER DELETE ON inbound_events BEGIN
  UPDATE account_event_storage
  SET bytes = bytes - (256 + length(CAST(old.payload AS BLOB)) + length(CAST(old.headers AS BLOB)) + length(CAST(old.warnings AS BLOB)) + coalesce(length(CAST(old.preview AS BLOB)), 0) + coalesce(length(CAST(old.rejection AS BLOB)), 0) + coalesce(length(CAST(old.error AS BLOB)), 0)),
    events = events - 1
  WHERE account_id = old.account_id;
END;
--> statement-breakpoint
CREATE TRIGGER inbound_events_storage_update AFTER UPDATE OF payload, headers, warnings, preview, rejection, error ON inbound_events BEGIN
  UPDATE account_event_storage
  SET bytes = bytes
    + (length(CAST(new.payload AS BLOB)) + length(CAST(new.headers AS BLOB)) + length(CAST(new.warnings AS BLOB)) + coalesce(length(CAST(new.preview AS BLOB)), 0) + coalesce(length(CAST(new.rejection AS BLOB)), 0) + coalesce(length(CAST(new.error AS BLOB)), 0))
    - (length(CAST(old.payload AS BLOB)) + length(CAST(old.headers AS BLOB)) + length(CAST(old.warnings AS BLOB)) + coalesce(length(CAST(old.preview AS BLOB)), 0) + coalesce(length(CAST(old.rejection AS BLOB)), 0) + coalesce(length(CAST(old.error AS BLOB)), 0))
  WHERE account_id = new.account_id;
END;
--> statement-breakpoint
-- At most 50 webhooks per account, disabled ones included (they keep their URL's events and can be
-- enabled again): checked inside the insert, so two concurrent creates cannot both pass 49.
-- src/model/event-storage.ts MAX_WEBHOOKS holds the same number for messages and docs.
CREATE TRIGGER inbound_webhooks_cap BEFORE INSERT ON inbound_webhooks
WHEN (SELECT count(*) FROM inbound_webhooks WHERE account_id = new.account_id) >= 50 BEGIN
  SELECT RAISE(ABORT, 'webhook_limit_reached');
END;
