CREATE TABLE `webhook_event_storage` (
	`webhook_id` integer PRIMARY KEY NOT NULL,
	`account_id` integer NOT NULL,
	`bytes` integer DEFAULT 0 NOT NULL,
	`events` integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
-- One URL cannot fill the account's storage for its other webhooks: each webhook's events are
-- counted too (webhook_event_storage), and ingest refuses a webhook past its share of the quota
-- (src/model/event-storage.ts). And the count now includes the event log's search index, which was
-- left out: its FTS5 trigram entries take 1.5 to 13 bytes per indexed byte (names and words share
-- their trigrams; random text does not, and each entry of this index carries its rowid, account_id
-- * 2^40 + id, a 6 to 9 byte varint). Its size is bounded here instead of measured (D1 has no
-- dbstat): each value is indexed by its first 100 characters (the digits of a phone likewise), at
-- most 1,000 characters of body and 200 of digits per event, a refused body by its first 500; and
-- each indexed byte counts 16, above the worst case measured. So an event costs 256 (its row and
-- index entries) + its stored text + 16 x its indexed text (19,200 at most), written once in the
-- view below and in the triggers (which cannot read a deleted row through a view).
CREATE VIEW inbound_event_cost AS SELECT e.id, e.account_id, e.webhook_id, 256 + length(CAST(e.payload AS BLOB)) + length(CAST(e.headers AS BLOB)) + length(CAST(e.warnings AS BLOB)) + length(CAST(e.history AS BLOB)) + coalesce(length(CAST(e.preview AS BLOB)), 0) + coalesce(length(CAST(e.rejection AS BLOB)), 0) + coalesce(length(CAST(e.error AS BLOB)), 0) + 16 * (length(CAST(substr(coalesce((SELECT group_concat(substr(CAST(value AS TEXT), 1, 100), ' ') FROM json_tree(e.payload) WHERE type IN ('text', 'integer', 'real')), '') || ' ' || coalesce(substr(json_extract(e.rejection, '$.body'), 1, 500), ''), 1, 1000) AS BLOB)) + length(substr(coalesce((SELECT group_concat(d, ' ') FROM (SELECT replace(replace(replace(replace(replace(replace(replace(substr(CAST(value AS TEXT), 1, 100), ' ', ''), '-', ''), '(', ''), ')', ''), '+', ''), '.', ''), '/', '') AS d FROM json_tree(e.payload) WHERE type IN ('text', 'integer')) WHERE length(d) >= 8 AND d NOT GLOB '*[^0-9]*'), ''), 1, 200))) AS bytes FROM inbound_events e;
--> statement-breakpoint
DROP TRIGGER inbound_events_storage_insert;
--> statement-breakpoint
DROP TRIGGER inbound_events_storage_delete;
--> statement-breakpoint
DROP TRIGGER inbound_events_storage_update;
--> statement-breakpoint
DROP TRIGGER inbound_event_text_insert;
--> statement-breakpoint
DROP TRIGGER inbound_event_text_update;
--> statement-breakpoint
DROP TRIGGER inbound_event_text_delete;
--> statement-breakpoint
INSERT INTO inbound_event_text (inbound_event_text) VALUES ('delete-all');
--> statement-breakpoint
CREATE TRIGGER inbound_event_text_insert AFTER INSERT ON inbound_events WHEN new.id < 1099511627776 AND new.account_id < 8388608 BEGIN
  INSERT INTO inbound_event_text (rowid, body, digits) VALUES (new.account_id * 1099511627776 + new.id,
    substr(coalesce((SELECT group_concat(substr(CAST(value AS TEXT), 1, 100), ' ') FROM json_tree(new.payload) WHERE type IN ('text', 'integer', 'real')), '') || ' ' || coalesce(substr(json_extract(new.rejection, '$.body'), 1, 500), ''), 1, 1000),
    substr(coalesce((SELECT group_concat(d, ' ') FROM (SELECT replace(replace(replace(replace(replace(replace(replace(substr(CAST(value AS TEXT), 1, 100), ' ', ''), '-', ''), '(', ''), ')', ''), '+', ''), '.', ''), '/', '') AS d FROM json_tree(new.payload) WHERE type IN ('text', 'integer')) WHERE length(d) >= 8 AND d NOT GLOB '*[^0-9]*'), ''), 1, 200));
END;
--> statement-breakpoint
-- Every rewrite of the text (a consumer's rewrite, the LGPD erasure) replaces the event's row.
CREATE TRIGGER inbound_event_text_update AFTER UPDATE OF payload, rejection ON inbound_events WHEN new.id < 1099511627776 AND new.account_id < 8388608 BEGIN
  DELETE FROM inbound_event_text WHERE rowid = old.account_id * 1099511627776 + old.id;
  INSERT INTO inbound_event_text (rowid, body, digits) VALUES (new.account_id * 1099511627776 + new.id,
    substr(coalesce((SELECT group_concat(substr(CAST(value AS TEXT), 1, 100), ' ') FROM json_tree(new.payload) WHERE type IN ('text', 'integer', 'real')), '') || ' ' || coalesce(substr(json_extract(new.rejection, '$.body'), 1, 500), ''), 1, 1000),
    substr(coalesce((SELECT group_concat(d, ' ') FROM (SELECT replace(replace(replace(replace(replace(replace(replace(substr(CAST(value AS TEXT), 1, 100), ' ', ''), '-', ''), '(', ''), ')', ''), '+', ''), '.', ''), '/', '') AS d FROM json_tree(new.payload) WHERE type IN ('text', 'integer')) WHERE length(d) >= 8 AND d NOT GLOB '*[^0-9]*'), ''), 1, 200));
END;
--> statement-breakpoint
CREATE TRIGGER inbound_event_text_delete AFTER DELETE ON inbound_events WHEN old.id < 1099511627776 AND old.account_id < 8388608 BEGIN
  DELETE FROM inbound_event_text WHERE rowid = old.account_id * 1099511627776 + old.id;
END;
--> statement-breakpoint
INSERT INTO inbound_event_text (rowid, body, digits) SELECT e.account_id * 1099511627776 + e.id,
  substr(coalesce((SELECT group_concat(substr(CAST(value AS TEXT), 1, 100), ' ') FROM json_tree(e.payload) WHERE type IN ('text', 'integer', 'real')), '') || ' ' || coalesce(substr(json_extract(e.rejection, '$.body'), 1, 500), ''), 1, 1000),
  substr(coalesce((SELECT group_concat(d, ' ') FROM (SELECT replace(replace(replace(replace(replace(replace(replace(substr(CAST(value AS TEXT), 1, 100), ' ', ''), '-', ''), '(', ''), ')', ''), '+', ''), '.', ''), '/', '') AS d FROM json_tree(e.payload) WHERE type IN ('text', 'integer')) WHERE length(d) >= 8 AND d NOT GLOB '*[^0-9]*'), ''), 1, 200)
FROM inbound_events e WHERE e.id < 1099511627776 AND e.account_id < 8388608;
--> statement-breakpoint
CREATE TRIGGER inbound_events_storage_insert AFTER INSERT ON inbound_events BEGIN
  INSERT INTO account_event_storage (account_id, bytes, events) VALUES (new.account_id, 256 + length(CAST(new.payload AS BLOB)) + length(CAST(new.headers AS BLOB)) + length(CAST(new.warnings AS BLOB)) + length(CAST(new.history AS BLOB)) + coalesce(length(CAST(new.preview AS BLOB)), 0) + coalesce(length(CAST(new.rejection AS BLOB)), 0) + coalesce(length(CAST(new.error AS BLOB)), 0) + 16 * (length(CAST(substr(coalesce((SELECT group_concat(substr(CAST(value AS TEXT), 1, 100), ' ') FROM json_tree(new.payload) WHERE type IN ('text', 'integer', 'real')), '') || ' ' || coalesce(substr(json_extract(new.rejection, '$.body'), 1, 500), ''), 1, 1000) AS BLOB)) + length(substr(coalesce((SELECT group_concat(d, ' ') FROM (SELECT replace(replace(replace(replace(replace(replace(replace(substr(CAST(value AS TEXT), 1, 100), ' ', ''), '-', ''), '(', ''), ')', ''), '+', ''), '.', ''), '/', '') AS d FROM json_tree(new.payload) WHERE type IN ('text', 'integer')) WHERE length(d) >= 8 AND d NOT GLOB '*[^0-9]*'), ''), 1, 200))), 1)
  ON CONFLICT (account_id) DO UPDATE SET bytes = bytes + excluded.bytes, events = events + 1;
  INSERT INTO webhook_event_storage (webhook_id, account_id, bytes, events) VALUES (new.webhook_id, new.account_id, 256 + length(CAST(new.payload AS BLOB)) + length(CAST(new.headers AS BLOB)) + length(CAST(new.warnings AS BLOB)) + length(CAST(new.history AS BLOB)) + coalesce(length(CAST(new.preview AS BLOB)), 0) + coalesce(length(CAST(new.rejection AS BLOB)), 0) + coalesce(length(CAST(new.error AS BLOB)), 0) + 16 * (length(CAST(substr(coalesce((SELECT group_concat(substr(CAST(value AS TEXT), 1, 100), ' ') FROM json_tree(new.payload) WHERE type IN ('text', 'integer', 'real')), '') || ' ' || coalesce(substr(json_extract(new.rejection, '$.body'), 1, 500), ''), 1, 1000) AS BLOB)) + length(substr(coalesce((SELECT group_concat(d, ' ') FROM (SELECT replace(replace(replace(replace(replace(replace(replace(substr(CAST(value AS TEXT), 1, 100), ' ', ''), '-', ''), '(', ''), ')', ''), '+', ''), '.', ''), '/', '') AS d FROM json_tree(new.payload) WHERE type IN ('text', 'integer')) WHERE length(d) >= 8 AND d NOT GLOB '*[^0-9]*'), ''), 1, 200))), 1)
  ON CONFLICT (webhook_id) DO UPDATE SET bytes = bytes + excluded.bytes, events = events + 1;
END;
--> statement-breakpoint
CREATE TRIGGER inbound_events_storage_delete AFTER DELETE ON inbound_events BEGIN
  UPDATE account_event_storage SET bytes = bytes - (256 + length(CAST(old.payload AS BLOB)) + length(CAST(old.headers AS BLOB)) + length(CAST(old.warnings AS BLOB)) + length(CAST(old.history AS BLOB)) + coalesce(length(CAST(old.preview AS BLOB)), 0) + coalesce(length(CAST(old.rejection AS BLOB)), 0) + coalesce(length(CAST(old.error AS BLOB)), 0) + 16 * (length(CAST(substr(coalesce((SELECT group_concat(substr(CAST(value AS TEXT), 1, 100), ' ') FROM json_tree(old.payload) WHERE type IN ('text', 'integer', 'real')), '') || ' ' || coalesce(substr(json_extract(old.rejection, '$.body'), 1, 500), ''), 1, 1000) AS BLOB)) + length(substr(coalesce((SELECT group_concat(d, ' ') FROM (SELECT replace(replace(replace(replace(replace(replace(replace(substr(CAST(value AS TEXT), 1, 100), ' ', ''), '-', ''), '(', ''), ')', ''), '+', ''), '.', ''), '/', '') AS d FROM json_tree(old.payload) WHERE type IN ('text', 'integer')) WHERE length(d) >= 8 AND d NOT GLOB '*[^0-9]*'), ''), 1, 200)))), events = events - 1 WHERE account_id = old.account_id;
  UPDATE webhook_event_storage SET bytes = bytes - (256 + length(CAST(old.payload AS BLOB)) + length(CAST(old.headers AS BLOB)) + length(CAST(old.warnings AS BLOB)) + length(CAST(old.history AS BLOB)) + coalesce(length(CAST(old.preview AS BLOB)), 0) + coalesce(length(CAST(old.rejection AS BLOB)), 0) + coalesce(length(CAST(old.error AS BLOB)), 0) + 16 * (length(CAST(substr(coalesce((SELECT group_concat(substr(CAST(value AS TEXT), 1, 100), ' ') FROM json_tree(old.payload) WHERE type IN ('text', 'integer', 'real')), '') || ' ' || coalesce(substr(json_extract(old.rejection, '$.body'), 1, 500), ''), 1, 1000) AS BLOB)) + length(substr(coalesce((SELECT group_concat(d, ' ') FROM (SELECT replace(replace(replace(replace(replace(replace(replace(substr(CAST(value AS TEXT), 1, 100), ' ', ''), '-', ''), '(', ''), ')', ''), '+', ''), '.', ''), '/', '') AS d FROM json_tree(old.payload) WHERE type IN ('text', 'integer')) WHERE length(d) >= 8 AND d NOT GLOB '*[^0-9]*'), ''), 1, 200)))), events = events - 1 WHERE webhook_id = old.webhook_id;
END;
--> statement-breakpoint
-- Two update triggers: the stored text changes with every move (its history), the indexed text only
-- when the payload or the rejection is rewritten, and only then is it read again.
CREATE TRIGGER inbound_events_storage_update AFTER UPDATE OF payload, headers, warnings, history, preview, rejection, error ON inbound_events BEGIN
  UPDATE account_event_storage SET bytes = bytes + (length(CAST(new.payload AS BLOB)) + length(CAST(new.headers AS BLOB)) + length(CAST(new.warnings AS BLOB)) + length(CAST(new.history AS BLOB)) + coalesce(length(CAST(new.preview AS BLOB)), 0) + coalesce(length(CAST(new.rejection AS BLOB)), 0) + coalesce(length(CAST(new.error AS BLOB)), 0)) - (length(CAST(old.payload AS BLOB)) + length(CAST(old.headers AS BLOB)) + length(CAST(old.warnings AS BLOB)) + length(CAST(old.history AS BLOB)) + coalesce(length(CAST(old.preview AS BLOB)), 0) + coalesce(length(CAST(old.rejection AS BLOB)), 0) + coalesce(length(CAST(old.error AS BLOB)), 0)) WHERE account_id = new.account_id;
  UPDATE webhook_event_storage SET bytes = bytes + (length(CAST(new.payload AS BLOB)) + length(CAST(new.headers AS BLOB)) + length(CAST(new.warnings AS BLOB)) + length(CAST(new.history AS BLOB)) + coalesce(length(CAST(new.preview AS BLOB)), 0) + coalesce(length(CAST(new.rejection AS BLOB)), 0) + coalesce(length(CAST(new.error AS BLOB)), 0)) - (length(CAST(old.payload AS BLOB)) + length(CAST(old.headers AS BLOB)) + length(CAST(old.warnings AS BLOB)) + length(CAST(old.history AS BLOB)) + coalesce(length(CAST(old.preview AS BLOB)), 0) + coalesce(length(CAST(old.rejection AS BLOB)), 0) + coalesce(length(CAST(old.error AS BLOB)), 0)) WHERE webhook_id = new.webhook_id;
END;
--> statement-breakpoint
CREATE TRIGGER inbound_events_storage_index_update AFTER UPDATE OF payload, rejection ON inbound_events BEGIN
  UPDATE account_event_storage SET bytes = bytes + (16 * (length(CAST(substr(coalesce((SELECT group_concat(substr(CAST(value AS TEXT), 1, 100), ' ') FROM json_tree(new.payload) WHERE type IN ('text', 'integer', 'real')), '') || ' ' || coalesce(substr(json_extract(new.rejection, '$.body'), 1, 500), ''), 1, 1000) AS BLOB)) + length(substr(coalesce((SELECT group_concat(d, ' ') FROM (SELECT replace(replace(replace(replace(replace(replace(replace(substr(CAST(value AS TEXT), 1, 100), ' ', ''), '-', ''), '(', ''), ')', ''), '+', ''), '.', ''), '/', '') AS d FROM json_tree(new.payload) WHERE type IN ('text', 'integer')) WHERE length(d) >= 8 AND d NOT GLOB '*[^0-9]*'), ''), 1, 200)))) - (16 * (length(CAST(substr(coalesce((SELECT group_concat(substr(CAST(value AS TEXT), 1, 100), ' ') FROM json_tree(old.payload) WHERE type IN ('text', 'integer', 'real')), '') || ' ' || coalesce(substr(json_extract(old.rejection, '$.body'), 1, 500), ''), 1, 1000) AS BLOB)) + length(substr(coalesce((SELECT group_concat(d, ' ') FROM (SELECT replace(replace(replace(replace(replace(replace(replace(substr(CAST(value AS TEXT), 1, 100), ' ', ''), '-', ''), '(', ''), ')', ''), '+', ''), '.', ''), '/', '') AS d FROM json_tree(old.payload) WHERE type IN ('text', 'integer')) WHERE length(d) >= 8 AND d NOT GLOB '*[^0-9]*'), ''), 1, 200)))) WHERE account_id = new.account_id;
  UPDATE webhook_event_storage SET bytes = bytes + (16 * (length(CAST(substr(coalesce((SELECT group_concat(substr(CAST(value AS TEXT), 1, 100), ' ') FROM json_tree(new.payload) WHERE type IN ('text', 'integer', 'real')), '') || ' ' || coalesce(substr(json_extract(new.rejection, '$.body'), 1, 500), ''), 1, 1000) AS BLOB)) + length(substr(coalesce((SELECT group_concat(d, ' ') FROM (SELECT replace(replace(replace(replace(replace(replace(replace(substr(CAST(value AS TEXT), 1, 100), ' ', ''), '-', ''), '(', ''), ')', ''), '+', ''), '.', ''), '/', '') AS d FROM json_tree(new.payload) WHERE type IN ('text', 'integer')) WHERE length(d) >= 8 AND d NOT GLOB '*[^0-9]*'), ''), 1, 200)))) - (16 * (length(CAST(substr(coalesce((SELECT group_concat(substr(CAST(value AS TEXT), 1, 100), ' ') FROM json_tree(old.payload) WHERE type IN ('text', 'integer', 'real')), '') || ' ' || coalesce(substr(json_extract(old.rejection, '$.body'), 1, 500), ''), 1, 1000) AS BLOB)) + length(substr(coalesce((SELECT group_concat(d, ' ') FROM (SELECT replace(replace(replace(replace(replace(replace(replace(substr(CAST(value AS TEXT), 1, 100), ' ', ''), '-', ''), '(', ''), ')', ''), '+', ''), '.', ''), '/', '') AS d FROM json_tree(old.payload) WHERE type IN ('text', 'integer')) WHERE length(d) >= 8 AND d NOT GLOB '*[^0-9]*'), ''), 1, 200)))) WHERE webhook_id = new.webhook_id;
END;
--> statement-breakpoint
-- Every count again, the index included, and each webhook's.
DELETE FROM account_event_storage;
--> statement-breakpoint
INSERT INTO account_event_storage (account_id, bytes, events) SELECT account_id, sum(bytes), count(*) FROM inbound_event_cost GROUP BY account_id;
--> statement-breakpoint
INSERT INTO webhook_event_storage (webhook_id, account_id, bytes, events) SELECT webhook_id, account_id, sum(bytes), count(*) FROM inbound_event_cost GROUP BY webhook_id;
