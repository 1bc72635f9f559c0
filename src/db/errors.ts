import { conflict, invalid, webhookLimitReached } from '../core/errors';

function messages(err: unknown): string {
  const parts: string[] = [];
  for (let e: unknown = err; e instanceof Error && parts.length < 5; e = e.cause) parts.push(e.message);
  return parts.join(' | ');
}

/** Which SQLite constraint a failed write broke, if any (D1 reports it only in the message). */
export function brokenConstraint(err: unknown): 'unique' | 'foreign_key' | undefined {
  const text = messages(err);
  if (text.includes('UNIQUE constraint failed')) return 'unique';
  if (text.includes('FOREIGN KEY constraint failed')) return 'foreign_key';
  return undefined;
}

/**
 * Runs a write, turning constraint failures into API errors: a unique index is a 409 on
 * `uniquePath` (the body field the index covers); a composite foreign key (a reference into another account, or one that vanished
 * since it was checked) is a 422.
 */
export async function guardedWrite<T>(write: PromiseLike<T>, uniquePath?: string): Promise<T> {
  try {
    return await write;
  } catch (err) {
    // Raised by the trigger inbound_webhooks_cap (drizzle/0011_event_storage.sql).
    if (messages(err).includes('webhook_limit_reached')) throw webhookLimitReached();
    const constraint = brokenConstraint(err);
    if (constraint === 'unique') {
      throw conflict(`Another record of this account has this ${uniquePath ?? 'value'}.`, uniquePath);
    }
    if (constraint === 'foreign_key') {
      throw invalid([
        { path: '', code: 'not_found', message: 'A referenced record is not in this account.' },
      ]);
    }
    throw err;
  }
}
