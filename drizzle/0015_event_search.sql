CREATE INDEX `inbound_events_warned_idx` ON `inbound_events` (`account_id`,`webhook_id`,`received_at`,`id`) WHERE "inbound_events"."warnings" <> '[]';--> statement-breakpoint
-- The event log's search ("find a lead", src/webhooks/event-filter.ts): one FTS5 row per event,
-- `body` the payload's values (never its keys) and the kept start of a refused call's body, and
-- `digits` each value that is a phone-like number written as its digits alone, so that
-- "(11) 91234-5678", "11912345678" and "+55 11 91234 5678" are all found in it. The trigram
-- tokenizer finds any substring of 3 characters or more, case and accents aside. Contentless:
-- it keeps no copy of the text (an erased payload leaves nothing behind); its rowid puts the
-- account in the high bits (account_id * 2^32 + id, as the /v1 search does), so a search reads
-- its own account's slice only. Not one of searchIndexes' tables: scripts/search-migration.mjs
-- leaves it alone.
CREATE VIRTUAL TABLE inbound_event_text USING fts5( body, digits, content='', contentless_delete=1, tokenize='trigram remove_diacritics 1' );
--> statement-breakpoint
CREATE TRIGGER inbound_event_text_insert AFTER INSERT ON inbound_events BEGIN
  INSERT INTO inbound_event_text (rowid, body, digits) VALUES (new.account_id * 4294967296 + new.id,
    coalesce((SELECT group_concat(value, ' ') FROM json_tree(new.payload) WHERE type IN ('text', 'integer', 'real')), '') || ' ' || coalesce(json_extract(new.rejection, '$.body'), ''),
    coalesce((SELECT group_concat(d, ' ') FROM (SELECT replace(replace(replace(replace(replace(replace(replace(CAST(value AS TEXT), ' ', ''), '-', ''), '(', ''), ')', ''), '+', ''), '.', ''), '/', '') AS d FROM json_tree(new.payload) WHERE type IN ('text', 'integer')) WHERE length(d) >= 8 AND d NOT GLOB '*[^0-9]*'), ''));
END;
--> statement-breakpoint
-- Every rewrite of the text (a consumer's rewrite, the LGPD erasure) replaces the event's row.
CREATE TRIGGER inbound_event_text_update AFTER UPDATE OF payload, rejection ON inbound_events BEGIN
  DELETE FROM inbound_event_text WHERE rowid = old.account_id * 4294967296 + old.id;
  INSERT INTO inbound_event_text (rowid, body, digits) VALUES (new.account_id * 4294967296 + new.id,
    coalesce((SELECT group_concat(value, ' ') FROM json_tree(new.payload) WHERE type IN ('text', 'integer', 'real')), '') || ' ' || coalesce(json_extract(new.rejection, '$.body'), ''),
    coalesce((SELECT group_concat(d, ' ') FROM (SELECT replace(replace(replace(replace(replace(replace(replace(CAST(value AS TEXT), ' ', ''), '-', ''), '(', ''), ')', ''), '+', ''), '.', ''), '/', '') AS d FROM json_tree(new.payload) WHERE type IN ('text', 'integer')) WHERE length(d) >= 8 AND d NOT GLOB '*[^0-9]*'), ''));
END;
--> statement-breakpoint
CREATE TRIGGER inbound_event_text_delete AFTER DELETE ON inbound_events BEGIN
  DELETE FROM inbound_event_text WHERE rowid = old.account_id * 4294967296 + old.id;
END;
--> statement-breakpoint
INSERT INTO inbound_event_text (rowid, body, digits) SELECT account_id * 4294967296 + id,
  coalesce((SELECT group_concat(value, ' ') FROM json_tree(e.payload) WHERE type IN ('text', 'integer', 'real')), '') || ' ' || coalesce(json_extract(e.rejection, '$.body'), ''),
  coalesce((SELECT group_concat(d, ' ') FROM (SELECT replace(replace(replace(replace(replace(replace(replace(CAST(value AS TEXT), ' ', ''), '-', ''), '(', ''), ')', ''), '+', ''), '.', ''), '/', '') AS d FROM json_tree(e.payload) WHERE type IN ('text', 'integer')) WHERE length(d) >= 8 AND d NOT GLOB '*[^0-9]*'), '')
FROM inbound_events e;
