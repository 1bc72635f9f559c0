ALTER TABLE `inbound_events` ADD `history` text DEFAULT '[]' NOT NULL;--> statement-breakpoint
-- The history is stored text too: the three triggers of 0011_event_storage.sql count it now. Each
-- event already stored holds '[]', 2 bytes, which the old triggers never counted.
UPDATE account_event_storage SET bytes = bytes + 2 * events;
--> statement-breakpoint
DROP TRIGGER inbound_events_storage_insert;
--> statement-breakpoint
DROP TRIGGER inbound_events_storage_delete;
--> statement-breakpoint
DROP TRIGGER inbound_events_storage_update;
--> statement-breakpoint
CREATE TRIGGER inbound_events_storage_insert AFTER INSERT ON inbound_events BEGIN
  INSERT INTO account_event_storage (account_id, bytes, events)
  VALUES (new.account_id, 256 + length(CAST(new.payload AS BLOB)) + length(CAST(new.headers AS BLOB)) + length(CAST(new.warnings AS BLOB)) + length(CAST(new.history AS BLOB)) + coalesce(length(CAST(new.preview AS BLOB)), 0) + coalesce(length(CAST(new.rejection AS BLOB)), 0) + coalesce(length(CAST(new.error AS BLOB)), 0), 1)
  ON CONFLICT (account_id) DO UPDATE SET bytes = bytes + excluded.bytes, events = events + 1;
END;
--> statement-breakpoint
CREATE TRIGGER inbound_events_storage_delete AFTER DELETE ON inbound_events BEGIN
  UPDATE account_event_storage
  SET bytes = bytes - (256 + length(CAST(old.payload AS BLOB)) + length(CAST(old.headers AS BLOB)) + length(CAST(old.warnings AS BLOB)) + length(CAST(old.history AS BLOB)) + coalesce(length(CAST(old.preview AS BLOB)), 0) + coalesce(length(CAST(old.rejection AS BLOB)), 0) + coalesce(length(CAST(old.error AS BLOB)), 0)),
    events = events - 1
  WHERE account_id = old.account_id;
END;
--> statement-breakpoint
CREATE TRIGGER inbound_events_storage_update AFTER UPDATE OF payload, headers, warnings, history, preview, rejection, error ON inbound_events BEGIN
  UPDATE account_event_storage
  SET bytes = bytes
    + (length(CAST(new.payload AS BLOB)) + length(CAST(new.headers AS BLOB)) + length(CAST(new.warnings AS BLOB)) + length(CAST(new.history AS BLOB)) + coalesce(length(CAST(new.preview AS BLOB)), 0) + coalesce(length(CAST(new.rejection AS BLOB)), 0) + coalesce(length(CAST(new.error AS BLOB)), 0))
    - (length(CAST(old.payload AS BLOB)) + length(CAST(old.headers AS BLOB)) + length(CAST(old.warnings AS BLOB)) + length(CAST(old.history AS BLOB)) + coalesce(length(CAST(old.preview AS BLOB)), 0) + coalesce(length(CAST(old.rejection AS BLOB)), 0) + coalesce(length(CAST(old.error AS BLOB)), 0))
  WHERE account_id = new.account_id;
END;
