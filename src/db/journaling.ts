import type { SQL } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import type { Db } from './client';
import type { KeyRef } from './tenant';

/**
 * Who makes a change, as the write machinery knows it: the request's key (an API key, or the
 * panel's session subquery), an inbound webhook's event, or the service itself (the cron).
 */
export type Actor = { key: KeyRef } | { webhookId: number; eventId: number } | 'system';

/** What happens to a record that exists before the write. */
export type Change = 'updated' | 'deleted' | 'restored';

/**
 * A resource's change journal (src/journal/), as the shared write machinery (db/own.ts,
 * db/trash.ts, the webhook actions, bulk writes) calls it: statements for the write's own batch,
 * never a round trip of their own. Set-based: `where` may select several rows (a deal's tasks).
 */
export type Journaling = {
  /**
   * Before the write: keeps the state of the rows `where` selects (those that exist and are about
   * to change), as a placeholder entry of `change`.
   */
  before(db: Db, where: SQL | undefined, change: Change, actor: Actor, now: number): BatchItem<'sqlite'>;
  /**
   * After the write, for the rows `where` selects: an entry `created` for each row new to the
   * journal (version 0), the placeholders of `before` filled with the row as it is now (or dropped
   * when nothing changed), and each journaled row's version moved to its entry's.
   */
  after(db: Db, where: SQL | undefined, actor: Actor, now: number): BatchItem<'sqlite'>[];
  /**
   * `after` for rows the batch itself inserted: no placeholder can be theirs, so only their
   * `created` entries and versions (two statements, not four: a create's batch does less).
   */
  created(db: Db, where: SQL | undefined, actor: Actor, now: number): BatchItem<'sqlite'>[];
  /**
   * WHERE for the rows that hold a placeholder of `before` (of `account`, or of every account):
   * for an `after` whose rows cannot be found again by the condition `before` used (a reference
   * the write cleared).
   */
  opened(account?: SQL<number> | number): SQL;
  /**
   * LGPD erasure of the rows `where` selects, before they are deleted: an `erased` entry with no
   * data, and the person's data blanked in every earlier entry of the record.
   */
  erased(db: Db, where: SQL | undefined, actor: Actor, now: number): BatchItem<'sqlite'>[];
  /** Before the rows `where` selects are deleted for good (the trash's purge): a last `deleted` entry with their data. */
  gone(db: Db, where: SQL | undefined, actor: Actor, now: number): BatchItem<'sqlite'>;
};
