import { type SQL, sql } from 'drizzle-orm';
import type { Actor } from '../db/journaling';
import { KeyGrant } from '../db/key-grant';
import { apiKeys } from '../db/schema';

/** The id of the API key `key` (its hash, or the panel session's subquery yielding it). */
const keyId = (key: string | SQL<string>) =>
  sql`(select ${apiKeys.id} from ${apiKeys} where ${apiKeys.keyHash} = ${key})`;

/**
 * The entry's `actor` JSON, computed in the entry's own statement. A key given as SQL is the
 * panel's session (src/panel/session.ts): the panel acts through its signed-in key. Numbers are
 * cast: D1 binds them as REAL, which JSON would write as `4.0`.
 */
export function actorJson(actor: Actor): SQL<string> {
  if (actor === 'system') return sql`json_object('type', 'system')`;
  if ('webhookId' in actor) {
    return sql`json_object('type', 'webhook', 'id', cast(${actor.webhookId} as integer), 'event_id', cast(${actor.eventId} as integer))`;
  }
  const key = actor.key instanceof KeyGrant ? actor.key.key : actor.key;
  if (typeof key === 'string') return sql`json_object('type', 'api_key', 'id', ${keyId(key)})`;
  return sql`json_object('type', 'panel', 'key_id', ${keyId(key)})`;
}
