ALTER TABLE `inbound_events` ADD `index_bytes` integer DEFAULT 0 NOT NULL;
--> statement-breakpoint
-- An insert walked its payload three times (json_tree, twice each): for its search index entries
-- (inbound_event_text) and for each of the two storage counts (account and webhook), and a delete
-- twice more. Now the event's text is built in one walk (body and digits together, with FILTER),
-- the index's share of its cost (16 x the indexed text, as drizzle/0020_webhook_event_storage.sql
-- defines it; the view inbound_event_cost still computes it from the payload) is computed once per
-- insert or rewrite into index_bytes, and the counts and the delete read it. The text and the counts
-- are the same as before (test/webhooks/event-storage.test.ts compares the counts with the view).
DROP TRIGGER inbound_event_text_insert;
--> statement-breakpoint
DROP TRIGGER inbound_event_text_update;
--> statement-breakpoint
DROP TRIGGER inbound_events_storage_insert;
--> statement-breakpoint
DROP TRIGGER inbound_events_storage_delete;
--> statement-breakpoint
DROP TRIGGER inbound_events_storage_index_update;
--> statement-breakpoint
-- Every event's counted index bytes, once (the same text the triggers below index).
UPDATE inbound_events SET index_bytes = (SELECT 16 * (length(CAST(body AS BLOB)) + length(digits)) FROM (SELECT substr(coalesce(group_concat(substr(CAST(value AS TEXT), 1, 100), ' ') FILTER (WHERE type IN ('text', 'integer', 'real')), '') || ' ' || coalesce(substr(json_extract(inbound_events.rejection, '$.body'), 1, 500), ''), 1, 1000) AS body, substr(coalesce(group_concat(d, ' ') FILTER (WHERE length(d) >= 8 AND d NOT GLOB '*[^0-9]*'), ''), 1, 200) AS digits FROM (SELECT type, value, CASE WHEN type IN ('text', 'integer') THEN replace(replace(replace(replace(replace(replace(replace(substr(CAST(value AS TEXT), 1, 100), ' ', ''), '-', ''), '(', ''), ')', ''), '+', ''), '.', ''), '/', '') END AS d FROM json_tree(inbound_events.payload))));
--> statement-breakpoint
CREATE TRIGGER inbound_event_text_insert AFTER INSERT ON inbound_events WHEN new.id < 1099511627776 AND new.account_id < 8388608 BEGIN
  INSERT INTO inbound_event_text (rowid, body, digits) SELECT new.account_id * 1099511627776 + new.id, body, digits FROM (SELECT substr(coalesce(group_concat(substr(CAST(value AS TEXT), 1, 100), ' ') FILTER (WHERE type IN ('text', 'integer', 'real')), '') || ' ' || coalesce(substr(json_extract(new.rejection, '$.body'), 1, 500), ''), 1, 1000) AS body, substr(coalesce(group_concat(d, ' ') FILTER (WHERE length(d) >= 8 AND d NOT GLOB '*[^0-9]*'), ''), 1, 200) AS digits FROM (SELECT type, value, CASE WHEN type IN ('text', 'integer') THEN replace(replace(replace(replace(replace(replace(replace(substr(CAST(value AS TEXT), 1, 100), ' ', ''), '-', ''), '(', ''), ')', ''), '+', ''), '.', ''), '/', '') END AS d FROM json_tree(new.payload)));
END;
--> statement-breakpoint
-- Every rewrite of the text (a consumer's rewrite, the LGPD erasure) replaces the event's row.
CREATE TRIGGER inbound_event_text_update AFTER UPDATE OF payload, rejection ON inbound_events WHEN new.id < 1099511627776 AND new.account_id < 8388608 BEGIN
  DELETE FROM inbound_event_text WHERE rowid = old.account_id * 1099511627776 + old.id;
  INSERT INTO inbound_event_text (rowid, body, digits) SELECT new.account_id * 1099511627776 + new.id, body, digits FROM (SELECT substr(coalesce(group_concat(substr(CAST(value AS TEXT), 1, 100), ' ') FILTER (WHERE type IN ('text', 'integer', 'real')), '') || ' ' || coalesce(substr(json_extract(new.rejection, '$.body'), 1, 500), ''), 1, 1000) AS body, substr(coalesce(group_concat(d, ' ') FILTER (WHERE length(d) >= 8 AND d NOT GLOB '*[^0-9]*'), ''), 1, 200) AS digits FROM (SELECT type, value, CASE WHEN type IN ('text', 'integer') THEN replace(replace(replace(replace(replace(replace(replace(substr(CAST(value AS TEXT), 1, 100), ' ', ''), '-', ''), '(', ''), ')', ''), '+', ''), '.', ''), '/', '') END AS d FROM json_tree(new.payload)));
END;
--> statement-breakpoint
-- The index's share is computed once per insert and kept in the row (index_bytes), so both counts
-- and a later delete read it instead of walking the payload again.
CREATE TRIGGER inbound_events_storage_insert AFTER INSERT ON inbound_events BEGIN
  UPDATE inbound_events SET index_bytes = (SELECT 16 * (length(CAST(body AS BLOB)) + length(digits)) FROM (SELECT substr(coalesce(group_concat(substr(CAST(value AS TEXT), 1, 100), ' ') FILTER (WHERE type IN ('text', 'integer', 'real')), '') || ' ' || coalesce(substr(json_extract(new.rejection, '$.body'), 1, 500), ''), 1, 1000) AS body, substr(coalesce(group_concat(d, ' ') FILTER (WHERE length(d) >= 8 AND d NOT GLOB '*[^0-9]*'), ''), 1, 200) AS digits FROM (SELECT type, value, CASE WHEN type IN ('text', 'integer') THEN replace(replace(replace(replace(replace(replace(replace(substr(CAST(value AS TEXT), 1, 100), ' ', ''), '-', ''), '(', ''), ')', ''), '+', ''), '.', ''), '/', '') END AS d FROM json_tree(new.payload)))) WHERE id = new.id;
  INSERT INTO account_event_storage (account_id, bytes, events) VALUES (new.account_id, 256 + length(CAST(new.payload AS BLOB)) + length(CAST(new.headers AS BLOB)) + length(CAST(new.warnings AS BLOB)) + length(CAST(new.history AS BLOB)) + coalesce(length(CAST(new.preview AS BLOB)), 0) + coalesce(length(CAST(new.rejection AS BLOB)), 0) + coalesce(length(CAST(new.error AS BLOB)), 0) + (SELECT index_bytes FROM inbound_events WHERE id = new.id), 1)
  ON CONFLICT (account_id) DO UPDATE SET bytes = bytes + excluded.bytes, events = events + 1;
  INSERT INTO webhook_event_storage (webhook_id, account_id, bytes, events) VALUES (new.webhook_id, new.account_id, 256 + length(CAST(new.payload AS BLOB)) + length(CAST(new.headers AS BLOB)) + length(CAST(new.warnings AS BLOB)) + length(CAST(new.history AS BLOB)) + coalesce(length(CAST(new.preview AS BLOB)), 0) + coalesce(length(CAST(new.rejection AS BLOB)), 0) + coalesce(length(CAST(new.error AS BLOB)), 0) + (SELECT index_bytes FROM inbound_events WHERE id = new.id), 1)
  ON CONFLICT (webhook_id) DO UPDATE SET bytes = bytes + excluded.bytes, events = events + 1;
END;
--> statement-breakpoint
CREATE TRIGGER inbound_events_storage_delete AFTER DELETE ON inbound_events BEGIN
  UPDATE account_event_storage SET bytes = bytes - (256 + length(CAST(old.payload AS BLOB)) + length(CAST(old.headers AS BLOB)) + length(CAST(old.warnings AS BLOB)) + length(CAST(old.history AS BLOB)) + coalesce(length(CAST(old.preview AS BLOB)), 0) + coalesce(length(CAST(old.rejection AS BLOB)), 0) + coalesce(length(CAST(old.error AS BLOB)), 0) + old.index_bytes), events = events - 1 WHERE account_id = old.account_id;
  UPDATE webhook_event_storage SET bytes = bytes - (256 + length(CAST(old.payload AS BLOB)) + length(CAST(old.headers AS BLOB)) + length(CAST(old.warnings AS BLOB)) + length(CAST(old.history AS BLOB)) + coalesce(length(CAST(old.preview AS BLOB)), 0) + coalesce(length(CAST(old.rejection AS BLOB)), 0) + coalesce(length(CAST(old.error AS BLOB)), 0) + old.index_bytes), events = events - 1 WHERE webhook_id = old.webhook_id;
END;
--> statement-breakpoint
CREATE TRIGGER inbound_events_storage_index_update AFTER UPDATE OF payload, rejection ON inbound_events BEGIN
  UPDATE inbound_events SET index_bytes = (SELECT 16 * (length(CAST(body AS BLOB)) + length(digits)) FROM (SELECT substr(coalesce(group_concat(substr(CAST(value AS TEXT), 1, 100), ' ') FILTER (WHERE type IN ('text', 'integer', 'real')), '') || ' ' || coalesce(substr(json_extract(new.rejection, '$.body'), 1, 500), ''), 1, 1000) AS body, substr(coalesce(group_concat(d, ' ') FILTER (WHERE length(d) >= 8 AND d NOT GLOB '*[^0-9]*'), ''), 1, 200) AS digits FROM (SELECT type, value, CASE WHEN type IN ('text', 'integer') THEN replace(replace(replace(replace(replace(replace(replace(substr(CAST(value AS TEXT), 1, 100), ' ', ''), '-', ''), '(', ''), ')', ''), '+', ''), '.', ''), '/', '') END AS d FROM json_tree(new.payload)))) WHERE id = new.id;
  UPDATE account_event_storage SET bytes = bytes + (SELECT index_bytes FROM inbound_events WHERE id = new.id) - old.index_bytes WHERE account_id = new.account_id;
  UPDATE webhook_event_storage SET bytes = bytes + (SELECT index_bytes FROM inbound_events WHERE id = new.id) - old.index_bytes WHERE webhook_id = new.webhook_id;
END;
