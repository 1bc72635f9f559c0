-- Substring search for the `__contains` filters: an FTS5 index per table over the normalised
-- columns those filters compare (users.name_norm, contacts.name_norm, companies.name_norm and
-- companies.segment_norm), kept in sync by triggers. src/db/search.ts writes the queries.
--
-- * Each column is indexed twice. As itself, with the trigram tokenizer: a value of 3 characters or
--   more finds every row that contains it (the phrase of its consecutive trigrams). The text is
--   already folded by the API (normalizeText), so the tokenizer must not fold again: case_sensitive 1.
--   As `<column>_grams`, for values of 1 or 2 characters, which trigrams cannot find: per character c
--   followed by d, the text `c` US US `cd` US (US = U+001F), whose trigrams include `c US US` and
--   `cd US`, one token per 1- and 2-character substring. Tokens made across those pieces only add
--   candidates, and the API checks every candidate with instr() anyway.
-- * Rowids are account_id * 2^32 + id: an account's rows are one rowid range, so a search reads only
--   that account's part of the index. Ids stay far below 2^32 (a 10 GB D1 database cannot hold
--   that many rows).
-- * The tables are contentless (content=''): the text lives in the base tables only, and
--   contentless_delete lets the triggers delete a row by its rowid.
-- * A table rebuilt by a later migration (drop + rename) loses these triggers: recreate them there.

-- The searchable texts, one row per column and row, so the grams expression below is written once.
CREATE VIEW search_text AS
  SELECT 'users.name' AS src, account_id, id, name_norm AS t FROM users
  UNION ALL SELECT 'contacts.name', account_id, id, name_norm FROM contacts
  UNION ALL SELECT 'companies.name', account_id, id, name_norm FROM companies
  UNION ALL SELECT 'companies.segment', account_id, id, segment_norm FROM companies;
--> statement-breakpoint
-- The grams text of each searchable text. It walks the UTF-8 bytes (SQLite's own substr() and
-- length() stop at a U+0000, which a text may hold): every byte that starts a character (not
-- 10xxxxxx) gives one piece; w1 and w2 are the byte widths of that character and the next one,
-- from their lead bytes. json_each over an array of length(b) zeros numbers the bytes.
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
CREATE VIRTUAL TABLE users_search USING fts5(
  name, name_grams, content='', contentless_delete=1, tokenize='trigram case_sensitive 1'
);
--> statement-breakpoint
CREATE VIRTUAL TABLE contacts_search USING fts5(
  name, name_grams, content='', contentless_delete=1, tokenize='trigram case_sensitive 1'
);
--> statement-breakpoint
CREATE VIRTUAL TABLE companies_search USING fts5(
  name, name_grams, segment, segment_grams,
  content='', contentless_delete=1, tokenize='trigram case_sensitive 1'
);
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
-- The rows that exist already.
INSERT INTO users_search (rowid, name, name_grams)
  SELECT account_id * 4294967296 + id, name_norm,
    (SELECT grams FROM search_grams g WHERE g.src = 'users.name' AND g.account_id = u.account_id AND g.id = u.id)
  FROM users u;
--> statement-breakpoint
INSERT INTO contacts_search (rowid, name, name_grams)
  SELECT account_id * 4294967296 + id, name_norm,
    (SELECT grams FROM search_grams g WHERE g.src = 'contacts.name' AND g.account_id = c.account_id AND g.id = c.id)
  FROM contacts c;
--> statement-breakpoint
INSERT INTO companies_search (rowid, name, name_grams, segment, segment_grams)
  SELECT account_id * 4294967296 + id, name_norm,
    (SELECT grams FROM search_grams g WHERE g.src = 'companies.name' AND g.account_id = c.account_id AND g.id = c.id),
    segment_norm,
    (SELECT grams FROM search_grams g WHERE g.src = 'companies.segment' AND g.account_id = c.account_id AND g.id = c.id)
  FROM companies c;
