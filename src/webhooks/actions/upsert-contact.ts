import { z } from '@hono/zod-openapi';
import { and, asc, eq, isNull, type SQL, sql } from 'drizzle-orm';
import { MAX_CUSTOM_FIELDS } from '../../contracts/common';
import { ContactUpdate } from '../../contracts/contacts';
import { type Said, said } from '../../core/said';
import { normalizeText } from '../../core/text';
import { changedColumns, insertUnless, newRow } from '../../db/own';
import { contacts } from '../../db/schema';
import { contactSpec } from '../../model/contacts';
import { common, MATCH_KEYS, withDefault } from '../config/schema';
import { type Match, sourceOf } from '../rules/flows';
import { type ActionModule, lookup, type SettleContext, type Target, type ValidOf } from './action';

const schema = z.strictObject({
  action: z.literal('upsert_contact'),
  match_on: withDefault(z.array(z.enum(MATCH_KEYS)).min(1).max(2), ['phone', 'email']),
  ...common,
});

type Valid = ValidOf<'upsert_contact', z.infer<typeof ContactUpdate>>;
type Writable = Valid & { target: Target };

/** The account's live contacts `match` finds: one in the trash is not matched, so an event creates a new one. */
const matchOf = (accountId: number, match: Match): SQL | undefined =>
  and(
    eq(contacts.accountId, accountId),
    isNull(contacts.deletedAt),
    match.by === 'phone' ? eq(contacts.phone, match.value) : eq(contacts.emailNorm, match.value),
  );

/** The first contact `match` finds, as a subquery. */
const matchedContact = (accountId: number, match: Match) =>
  sql<number>`(select ${contacts.id} from ${contacts} where ${matchOf(accountId, match)} order by ${asc(contacts.id)} limit 1)`;

/**
 * The contact found, or the name a new one takes: its own, else (none mapped, and nothing matched)
 * its email, else its phone (both as normalised), as HubSpot does, with a `contact_named_from`
 * warning, so the lead is kept. Without either it cannot be found again: the event fails.
 */
function targetOf(step: Valid, ctx: SettleContext): { step: Writable } | { fail: Said } {
  const { contactId } = ctx.found;
  if (contactId !== undefined) return { step: { ...step, target: { id: contactId } } };
  if (step.body.name !== undefined) return { step: { ...step, target: { name: step.body.name } } };
  const { email, phone } = step.body;
  const from = email
    ? { field: 'email', value: email }
    : phone
      ? { field: 'phone', value: phone }
      : undefined;
  if (!from) return { fail: said('contact_unnamed') };
  ctx.warn({
    path: `flows.${step.index}`,
    ...said('contact_named_from', { by: from.field, value: from.value }),
  });
  return { step: { ...step, target: { name: from.value } } };
}

/** The mapped custom fields that fit the /v1 limit once merged into the found contact's. */
function customFieldsKept(step: Writable, ctx: SettleContext): Writable {
  const custom = step.body.custom_fields;
  if (!custom) return step;
  const keys = new Set(Object.keys(ctx.found.customFields ?? {}));
  const kept: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(custom)) {
    if (keys.has(key) || keys.size < MAX_CUSTOM_FIELDS) {
      keys.add(key);
      kept[key] = value;
    } else {
      ctx.warn({
        path: sourceOf(ctx.fields, 'contact', step.index, `custom_fields.${key}`),
        ...said('dropped', {
          record: 'contact',
          cause: { code: 'custom_fields_full', params: { max: MAX_CUSTOM_FIELDS } },
        }),
      });
    }
  }
  return { ...step, body: { ...step.body, custom_fields: kept } } as Writable;
}

/** Finds a contact by phone or email, else creates it; the event's values update it either way. */
export const upsertContact: ActionModule<'upsert_contact', typeof schema, Valid, Writable, Writable> = {
  name: 'upsert_contact',
  schema,
  once: true,
  check(action, { mapped, issue }) {
    action.match_on.forEach((key, j) => {
      if (!mapped(`contact.${key}`))
        issue(said('target_unmapped', { target: `contact.${key}` }), 'match_on', j);
    });
  },
  plan(action, { mapped, mappedValue }) {
    const by = action.match_on.find((key) => mappedValue(`contact.${key}`) !== undefined);
    const value = by && mappedValue(`contact.${by}`);
    const match = by && typeof value === 'string' ? { by, value: normalizeText(value) } : undefined;
    return { body: mapped('contact'), match };
  },
  record: 'contact',
  body: ContactUpdate,
  essential: [],
  // The first live contact the match finds, and its custom fields (the event's are merged in).
  lookup: (step, db, accountId) =>
    step.match &&
    lookup(
      db
        .select({ id: contacts.id, customFields: contacts.customFields })
        .from(contacts)
        .where(matchOf(accountId, step.match))
        .orderBy(asc(contacts.id))
        .limit(1),
      ([contact]) => ({ contactId: contact?.id, customFields: contact?.customFields }),
    ),
  // Its name decides whether the event can be written at all, before any other step is settled.
  early: targetOf,
  settle: (step, ctx) => ({ step: customFieldsKept(step, ctx) }),
  statements(w, step) {
    const { db, accountId, now } = w;
    const { custom_fields, ...fields } = step.body;
    const { target, match } = step;
    if ('id' in target) w.push(w.setResult({ contactId: target.id }));
    else {
      const owner = w.owner(step);
      const row = {
        ...newRow(db, contactSpec, { ...step.body, name: target.name }, accountId, now),
        ...(owner && { ownerId: owner }),
      };
      // With a match key, another event may have created this contact since it was looked up:
      // insert only if it is still absent, then take whichever contact the match finds.
      w.push(
        match ? insertUnless(db, contacts, row, matchOf(accountId, match)) : db.insert(contacts).values(row),
        w.setResult({ contactId: match ? matchedContact(accountId, match) : sql`last_insert_rowid()` }),
      );
    }
    // The found (or raced) contact takes the event's fields; on a row just inserted this changes
    // nothing. Mapped custom fields are merged into the contact's, not replacing the others.
    if ('id' in target || match) {
      const found = and(eq(contacts.accountId, accountId), eq(contacts.id, w.result('contactId')));
      w.push(
        // The contact as it was (a contact this batch inserted has no entry yet: it is created).
        contactSpec.journal.before(db, found, 'updated', w.actor, now),
        db
          .update(contacts)
          .set({
            ...changedColumns(contactSpec, fields, accountId),
            ...(custom_fields && {
              customFields: sql`json_patch(${contacts.customFields}, ${JSON.stringify(custom_fields)})`,
            }),
            updatedAt: sql`max(${now}, ${contacts.updatedAt})`,
          })
          .where(and(eq(contacts.accountId, accountId), eq(contacts.id, w.result('contactId')))),
      );
    }
  },
  link(w, written) {
    if (!written.has('upsert_company')) return;
    w.push(
      w.db
        .update(contacts)
        .set({ companyId: w.result('companyId') })
        .where(and(eq(contacts.accountId, w.accountId), eq(contacts.id, w.result('contactId')))),
    );
  },
  journal: (w) =>
    contactSpec.journal.after(
      w.db,
      and(eq(contacts.accountId, w.accountId), eq(contacts.id, w.result('contactId'))),
      w.actor,
      w.now,
    ),
  preview(step, owner, out) {
    // An update keeps the record's owner, so only a create shows one.
    const { target } = step;
    out.contact =
      'id' in target
        ? { action: 'update', id: target.id, fields: step.body }
        : { action: 'create', fields: { name: target.name, ...step.body, ...owner } };
  },
  panel: { match_on: 'optional' },
  labels: { 'pt-BR': 'Criar ou atualizar contato', en: 'Create or update contact' },
};
