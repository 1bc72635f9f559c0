-- The event log's search index gets rowids of account_id * 2^40 + id (they were account_id * 2^32 + id).
-- Event ids are one sequence for every account: once it passed 2^32 (4.3 billion events, refused
-- calls included, which any sender can make), account A's event 2^32 + k took the rowid of account
-- A + 1's event k, so A + 1's search for A's words listed its own event k (an oracle on another
-- account's events) and A never found its own. 2^40 ids (1.1 trillion) for 2^23 accounts (8.4
-- million) fit SQLite's 63 bits; an event past either bound is left out of the index (not
-- searchable, never in another account's range) instead of landing in someone else's.
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
    coalesce((SELECT group_concat(value, ' ') FROM json_tree(new.payload) WHERE type IN ('text', 'integer', 'real')), '') || ' ' || coalesce(json_extract(new.rejection, '$.body'), ''),
    coalesce((SELECT group_concat(d, ' ') FROM (SELECT replace(replace(replace(replace(replace(replace(replace(CAST(value AS TEXT), ' ', ''), '-', ''), '(', ''), ')', ''), '+', ''), '.', ''), '/', '') AS d FROM json_tree(new.payload) WHERE type IN ('text', 'integer')) WHERE length(d) >= 8 AND d NOT GLOB '*[^0-9]*'), ''));
END;
--> statement-breakpoint
-- Every rewrite of the text (a consumer's rewrite, the LGPD erasure) replaces the event's row.
CREATE TRIGGER inbound_event_text_update AFTER UPDATE OF payload, rejection ON inbound_events WHEN new.id < 1099511627776 AND new.account_id < 8388608 BEGIN
  DELETE FROM inbound_event_text WHERE rowid = old.account_id * 1099511627776 + old.id;
  INSERT INTO inbound_event_text (rowid, body, digits) VALUES (new.account_id * 1099511627776 + new.id,
    coalesce((SELECT group_concat(value, ' ') FROM json_tree(new.payload) WHERE type IN ('text', 'integer', 'real')), '') || ' ' || coalesce(json_extract(new.rejection, '$.body'), ''),
    coalesce((SELECT group_concat(d, ' ') FROM (SELECT replace(replace(replace(replace(replace(replace(replace(CAST(value AS TEXT), ' ', ''), '-', ''), '(', ''), ')', ''), '+', ''), '.', ''), '/', '') AS d FROM json_tree(new.payload) WHERE type IN ('text', 'integer')) WHERE length(d) >= 8 AND d NOT GLOB '*[^0-9]*'), ''));
END;
--> statement-breakpoint
CREATE TRIGGER inbound_event_text_delete AFTER DELETE ON inbound_events WHEN old.id < 1099511627776 AND old.account_id < 8388608 BEGIN
  DELETE FROM inbound_event_text WHERE rowid = old.account_id * 1099511627776 + old.id;
END;
--> statement-breakpoint
INSERT INTO inbound_event_text (rowid, body, digits) SELECT account_id * 1099511627776 + id,
  coalesce((SELECT group_concat(value, ' ') FROM json_tree(e.payload) WHERE type IN ('text', 'integer', 'real')), '') || ' ' || coalesce(json_extract(e.rejection, '$.body'), ''),
  coalesce((SELECT group_concat(d, ' ') FROM (SELECT replace(replace(replace(replace(replace(replace(replace(CAST(value AS TEXT), ' ', ''), '-', ''), '(', ''), ')', ''), '+', ''), '.', ''), '/', '') AS d FROM json_tree(e.payload) WHERE type IN ('text', 'integer')) WHERE length(d) >= 8 AND d NOT GLOB '*[^0-9]*'), '')
FROM inbound_events e WHERE e.id < 1099511627776 AND e.account_id < 8388608;
