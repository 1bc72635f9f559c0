import { and, eq, type SQL, sql } from 'drizzle-orm';
import { notFound } from '../core/errors';
import type { Db } from './client';
import type { Journaling } from './journaling';
import { mayName, names, nodeNames, pieces, readings, VALUE_CUTS, WORD_CUTS, walkable } from './person-match';
import {
  contacts,
  deals,
  idempotencyKeys,
  inboundEventResults,
  inboundEvents,
  webhookAttempts,
  webhookDeliveries,
} from './schema';
import { accountOf, type KeyRef, scoped } from './tenant';

const ERASED = 'Erased on request (LGPD).';

/**
 * The ids of the account's webhook events that hold contact `id`: those that produced it (their
 * result) or matched it (a test event's preview), and those that name its email or phone anywhere
 * they keep a sender's text: payload values and keys, the kept start of a refused body (each
 * piece as written, as JSON string content with its escapes decoded, and as a form's key or value
 * with `+` a space and its percent-escapes decoded), the problem's detail, the kept
 * headers, the Idempotency-Key. One flat select per place: SQLite caps how deep an expression
 * nests, subqueries included.
 */
function eventsHolding(account: SQL, id: number): SQL {
  const naming = (sources: SQL, where: SQL) =>
    sql`select x.id from ${inboundEvents} x join ${contacts} c on c.account_id = x.account_id and c.id = ${id}${sources}
      where x.account_id = ${account} and ${where}`;
  const body = sql`json_extract(x.rejection, '$.body')`;
  const detail = sql`json_extract(x.rejection, '$.detail')`;
  const r = inboundEventResults;
  const linked = sql`select x.id from ${inboundEvents} x where x.account_id = ${account} and (
    x.id in (select ${r.eventId} from ${r} where ${r.accountId} = ${account} and ${r.contactId} = ${id})
    or json_extract(x.preview, '$.contact.id') = ${id}
    or exists (select 1 from ${contacts} c where c.account_id = x.account_id and c.id = ${id} and ${names(sql`x.idempotency_key`)}))`;
  const payload = naming(sql`, json_tree(${walkable(sql`x.payload`)}) v`, nodeNames('v'));
  // Texts are cut into pieces only when they may name the person (mayName): the cutting reads
  // them one character at a time, and every event has headers. A kept body with an escape (`\`
  // in JSON, `%` in a form) may hide the person from mayName, so it is always cut, and each
  // piece read every way ingest may read it (readings), escapes decoded.
  const kept = naming(
    sql`, json_each(${pieces(body, VALUE_CUTS)}) w, json_each(${readings(sql`w.value`)}) r`,
    sql`x.rejection is not null and (${mayName(body)} or ${body} glob '*[\\%]*') and ${names(sql`r.value`)}`,
  );
  const problem = naming(
    sql`, json_each(${pieces(detail, WORD_CUTS)}) w`,
    sql`x.rejection is not null and ${mayName(detail)} and ${names(sql`w.value`)}`,
  );
  const headers = naming(
    sql`, json_each(x.headers) h`,
    sql`(${names(sql`h.value`)} or (${mayName(sql`h.value`)} and exists (select 1 from json_each(${pieces(sql`h.value`, WORD_CUTS)}) w where ${names(sql`w.value`)})))`,
  );
  // Grouped in twos: D1 caps the terms of one compound select.
  return sql`select id from (${linked} union all ${payload})
    union all select id from (${kept} union all ${problem})
    union all ${headers}`;
}

/**
 * The account's Idempotency-Keys whose stored answer holds contact `id`, whatever the route: the
 * create's (its Location), and any whose body names its email or phone, holds the contact itself
 * (an object with its id and a `phone` key, which only contacts have: a create, a restore) or an
 * event of `events` (a replay).
 */
function answersHolding(account: SQL, id: number, events: SQL): SQL {
  const suffix = `/v1/contacts/${id}`;
  const body = sql`json_extract(k.response, '$.body')`;
  const object = (test: SQL) => sql`(n.type = 'object' and ${test})`;
  return sql`select k.key from ${idempotencyKeys} k where k.account_id = ${account}
      and substr(json_extract(k.response, '$.headers.location'), -${suffix.length}) = ${suffix}
    union all select k.key from ${idempotencyKeys} k
      join ${contacts} c on c.account_id = k.account_id and c.id = ${id}, json_tree(${walkable(body)}) n
      where k.account_id = ${account} and (${nodeNames('n')}
        or ${object(sql`json_extract(n.value, '$.id') = c.id and json_type(n.value, '$.phone') is not null`)}
        or ${object(sql`json_type(n.value, '$.webhook_id') is not null and json_extract(n.value, '$.id') in (${events})`)})`;
}

/**
 * LGPD erasure, one round trip and one batch: contact `id` of the account (live or in the trash)
 * is deleted for good, and with it every copy of its personal data the service keeps: the search
 * index (by the delete trigger), every stored Idempotency-Key answer that holds it, and the
 * payloads, headers, kept bodies, problem details, previews, errors, warnings and history errors of
 * the webhook events that hold it (eventsHolding). Deals and event results that pointed at it keep
 * existing without it.
 * The change journal (`journals`) gets a `contact.erased` entry, the person blanked from the
 * contact's earlier entries, and a `deal.updated` for each deal that loses it.
 * 404 if absent.
 */
export async function eraseContact(
  db: Db,
  keyHash: KeyRef,
  id: number,
  journals: { contact: Journaling; deal: Journaling },
): Promise<void> {
  const account = accountOf(keyHash);
  const target = and(eq(contacts.accountId, account), eq(contacts.id, id));
  // Every statement changes nothing unless the contact is there, so a 404 leaves D1 as it was.
  const present = sql`exists (select 1 from ${contacts} where ${target})`;
  const e = inboundEvents;
  const k = idempotencyKeys;
  const actor = { key: keyHash };
  const now = Date.now();
  const itsDeals = and(eq(deals.accountId, account), eq(deals.contactId, id));
  const results = await scoped(
    db,
    keyHash,
    // First, while the events a replay's answer embeds still hold the person. Committed and
    // without its answer, a key stays taken: a retry gets a 409 and never runs the POST again.
    db
      .update(k)
      .set({ status: null, response: null })
      .where(
        and(
          present,
          eq(k.accountId, account),
          sql`${k.key} in (${answersHolding(account, id, eventsHolding(account, id))})`,
        ),
      ),
    db
      .update(e)
      .set({
        payload: sql`case when ${e.status} = 'rejected' then 'null' else '{}' end`,
        rejection: sql`json_set(${e.rejection}, '$.body', null, '$.detail', ${ERASED})`,
        headers: {},
        preview: null,
        // Who the event was about, as it arrived (the event list's "Lead"): the person, blanked.
        lead: [],
        error: sql`case when ${e.error} is null then null else ${ERASED} end`,
        // A failure's params may quote a value too (a field error's `sent`, D1's detail): its code stays.
        errorParams: null,
        // A warning may quote a value (the email a contact was named after) or a key of the body
        // (a reserved key's path, a Latin-1 form key), in its message and its params: only its
        // code stays.
        warnings: sql`(select coalesce(json_group_array(json_remove(json_set(w.value, '$.path', '', '$.message', ${ERASED}), '$.params')), '[]') from json_each(${e.warnings}) w)`,
        // A mark's error may quote a value of the body, as the event's error may.
        history: sql`(select coalesce(json_group_array(json_set(h.value, '$.error', case when json_extract(h.value, '$.error') is null then null else ${ERASED} end)), '[]') from json_each(${e.history}) h)`,
        // The key, when it is the person's email or phone; another key keeps deduplicating.
        idempotencyKey: sql`case when exists (select 1 from ${contacts} c where c.account_id = ${e.accountId}
          and c.id = ${id} and ${names(sql`${e.idempotencyKey}`)}) then null else ${e.idempotencyKey} end`,
      })
      .where(and(present, eq(e.accountId, account), sql`${e.id} in (${eventsHolding(account, id)})`)),
    db
      .update(inboundEventResults)
      .set({ contactId: null })
      .where(and(eq(inboundEventResults.accountId, account), eq(inboundEventResults.contactId, id))),
    journals.deal.before(db, itsDeals, 'updated', actor, now),
    db.update(deals).set({ contactId: null }).where(itsDeals),
    ...journals.deal.after(db, journals.deal.opened(account), actor, now),
    ...journals.contact.erased(db, target, actor, now),
    // Outbound deliveries of the contact's entries (src/outbound/): the record's snapshots go, the
    // entry's envelope (id, type, version, actor) stays, as in the journal.
    db
      .update(webhookDeliveries)
      .set({ body: sql`json_set(${webhookDeliveries.body}, '$.data.data', null, '$.data.previous', null)` })
      .where(
        and(
          present,
          eq(webhookDeliveries.accountId, account),
          eq(webhookDeliveries.recordKey, `contact:${id}`),
        ),
      ),
    // And what their receivers answered to them, which may echo the person back.
    db
      .update(webhookAttempts)
      .set({ response: '' })
      .where(
        and(
          present,
          eq(webhookAttempts.accountId, account),
          sql`${webhookAttempts.deliveryId} in (select ${webhookDeliveries.id} from ${webhookDeliveries} where ${webhookDeliveries.accountId} = ${account} and ${webhookDeliveries.recordKey} = ${`contact:${id}`})`,
        ),
      ),
    db.delete(contacts).where(target).returning({ id: contacts.id }),
  );
  if (!(results.at(-1) as unknown[]).length) throw notFound();
}
