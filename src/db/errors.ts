import { Column, is } from 'drizzle-orm';
import { getTableConfig, type SQLiteTable } from 'drizzle-orm/sqlite-core';
import {
  conflict,
  DomainError,
  endpointLimitReached,
  invalid,
  keyLimitReached,
  webhookLimitReached,
} from '../core/errors';

function messages(err: unknown): string {
  const parts: string[] = [];
  for (let e: unknown = err; e instanceof Error && parts.length < 5; e = e.cause) parts.push(e.message);
  return parts.join(' | ');
}

/**
 * True when a freeze trigger refused the write: its account is being moved between shards
 * (src/core/moving-tables.ts's triggers raise `account_moving`). Not a failure: a retry after the
 * switch goes through, on the account's new shard.
 */
export const isAccountMoving = (err: unknown): boolean =>
  (err instanceof DomainError && err.code === 'account_moving') || messages(err).includes('account_moving');

/** How long a write refused by a move should wait: the freeze lasts seconds. */
export const MOVING_RETRY_AFTER_SECONDS = 5;

export const accountMoving = () =>
  new DomainError(
    'account_moving',
    'This account is being moved to another database; its data is frozen for a few seconds. Nothing was written: retry shortly.',
  );

/** Which SQLite constraint a failed write broke, if any (D1 reports it only in the message). */
export function brokenConstraint(err: unknown): 'unique' | 'foreign_key' | undefined {
  const text = messages(err);
  if (text.includes('UNIQUE constraint failed')) return 'unique';
  if (text.includes('FOREIGN KEY constraint failed')) return 'foreign_key';
  return undefined;
}

/**
 * The body field a unique index of `table` guards, when that index refused the write. SQLite
 * names the index's columns ("UNIQUE constraint failed: users.account_id, users.email_norm"); the
 * index over them is named `<table>_<field>_uq` in src/db/schema.ts.
 */
export function uniqueField(err: unknown, table: SQLiteTable): string | undefined {
  const failed = /UNIQUE constraint failed: ([\w.]+(?:, [\w.]+)*)/.exec(messages(err))?.[1]?.split(', ');
  if (!failed) return undefined;
  const { name, indexes } = getTableConfig(table);
  const index = indexes.find(({ config }) => {
    const columns = config.columns.map((c) => (is(c, Column) ? `${name}.${c.name}` : ''));
    return config.unique && columns.length === failed.length && columns.every((c) => failed.includes(c));
  });
  return index?.config.name.match(new RegExp(`^${name}_(\\w+)_uq$`))?.[1];
}

/**
 * Runs a write to `table`, turning constraint failures into API errors: one of its unique indexes
 * is a 409 on the body field it guards (see `uniqueField`); a composite foreign key (a reference
 * into another account, or one that vanished since it was checked) is a 422.
 */
export async function guardedWrite<T>(write: PromiseLike<T>, table: SQLiteTable): Promise<T> {
  try {
    return await write;
  } catch (err) {
    // Raised by the trigger inbound_webhooks_cap (drizzle/0011_event_storage.sql).
    if (messages(err).includes('webhook_limit_reached')) throw webhookLimitReached();
    // Raised by the trigger api_keys_cap (drizzle/0017_api_keys_cap.sql).
    if (messages(err).includes('api_key_limit_reached')) throw keyLimitReached();
    // Raised by the trigger webhook_endpoints_cap (drizzle/0024_outbound_webhooks.sql).
    if (messages(err).includes('webhook_endpoint_limit_reached')) throw endpointLimitReached();
    const constraint = brokenConstraint(err);
    if (constraint === 'unique') {
      const field = uniqueField(err, table);
      throw conflict(`Another record of this account has this ${field ?? 'value'}.`, field);
    }
    if (constraint === 'foreign_key') {
      throw invalid([
        { path: '', code: 'not_found', message: 'A referenced record is not in this account.' },
      ]);
    }
    throw err;
  }
}
