-- Within an account, the rows of each searchable table (users, contacts, companies) are in the
-- same order by (created_at, id) as by id alone. A list sorted by created_at with a `__contains`
-- filter then walks the search index, whose rowids (account_id * 2^32 + id, see 0003_search) are
-- in id order, and stops when its page is full, however common or rare the value.
--
-- * The API writes a new row's created_at as max(now, the account's newest created_at) (newRow in
--   src/db/own.ts), and SQLite gives it the table's highest id, so a clock that runs behind the
--   newest row's cannot put a row out of order.
-- * The triggers below refuse any other write that would: an insert that is not the account's
--   newest row by created_at and by id, or a change of created_at, id or account_id (the API changes
--   none of them). Both checks of an insert read one index entry: the account's newest created_at,
--   and the ids above the new one (none, when SQLite chose the id).
-- * Rows written before this migration are brought into order first: a row whose created_at is
--   before that of a lower id in its account takes that created_at (the running maximum).

UPDATE users SET created_at = ordered.running
FROM (
  SELECT id, max(created_at) OVER (PARTITION BY account_id ORDER BY id) AS running FROM users
) AS ordered
WHERE ordered.id = users.id AND users.created_at < ordered.running;
--> statement-breakpoint
UPDATE contacts SET created_at = ordered.running
FROM (
  SELECT id, max(created_at) OVER (PARTITION BY account_id ORDER BY id) AS running FROM contacts
) AS ordered
WHERE ordered.id = contacts.id AND contacts.created_at < ordered.running;
--> statement-breakpoint
UPDATE companies SET created_at = ordered.running
FROM (
  SELECT id, max(created_at) OVER (PARTITION BY account_id ORDER BY id) AS running FROM companies
) AS ordered
WHERE ordered.id = companies.id AND companies.created_at < ordered.running;
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
