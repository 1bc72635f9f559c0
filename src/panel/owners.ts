import { and, eq, sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { live } from '../db/live';
import { inboundWebhooks, users } from '../db/schema';
import { accountOf, type KeyRef } from '../db/tenant';

// The users a configuration form's owner pickers offer, as queries of the page's one batch.

/** The account's live users by name, the first 500: the options of an owner picker. */
export const usersOf = (db: Db, key: KeyRef) =>
  db
    .select({ id: users.id, name: users.name })
    .from(users)
    .where(and(eq(users.accountId, accountOf(key)), live(users)))
    .orderBy(users.nameNorm, users.id)
    .limit(500);

/**
 * The users the webhook's flows name (as owner or in a round robin), live or in the trash: each is
 * shown by name (one in the trash says so, one past the first 500 users is named too) and kept,
 * never dropped from the form because no option names them.
 */
export const namedUsers = (db: Db, key: KeyRef, id: number) =>
  db
    .select({ id: users.id, name: users.name, deletedAt: users.deletedAt })
    .from(users)
    .where(
      and(
        eq(users.accountId, accountOf(key)),
        sql`${users.id} in (select t.value from ${inboundWebhooks} w, json_tree(w.flows) t where w.id = ${id} and w.account_id = ${accountOf(key)} and t.type = 'integer' and (t.key = 'user_id' or t.path like '%.round_robin'))`,
      ),
    );
