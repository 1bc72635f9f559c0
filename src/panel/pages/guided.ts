import { and, desc, eq, ne } from 'drizzle-orm';
import { fieldErrors } from '../../contracts/field-errors';
import { notFound } from '../../core/errors';
import { leaves } from '../../core/json-paths';
import type { Refs } from '../../core/refs';
import { createOwn, type UpdateRead } from '../../db/own';
import { refsQuery } from '../../db/refs';
import { inboundEvents, type inboundWebhooks } from '../../db/schema';
import { accountOf, type KeyRef, scoped } from '../../db/tenant';
import { InboundWebhookCreate, MAX_FIELDS } from '../../webhooks/contract/schemas';
import { eventQuery, presentEvent, sampleEvents, sampleFieldsOf } from '../../webhooks/log/event-reads';
import { senderHeaders } from '../../webhooks/resource/sample-event';
import { webhookQuery, webhookSpec } from '../../webhooks/resource/store';
import type { Action, FieldMapping } from '../../webhooks/rules/config';
import { fixedTargets, ownerRefs } from '../../webhooks/rules/config';
import {
  customName,
  declarableKey,
  productKey,
  readAs,
  suggestTargets,
} from '../../webhooks/rules/target-guess';
import { render } from '../../webhooks/rules/templates';
import { usersOf } from '../owners';
import { type C, idOf, pageOf, viewOf } from '../page';
import { configErrorText, saidText } from '../said-words';
import {
  eventStep,
  type FlowChoices,
  flowsStep,
  liveStep,
  type MapRow,
  mappingStep,
  nameStep,
  previewStep,
  type Step,
} from '../views/guided';
import type { Page } from '../views/layout';
import { type Deliver, post } from './samples';
import { update } from './webhook-writes';

// The guided start of a webhook (issue 41): name, one real event, mapping by picking, what to do in
// sentences, a test event's preview, go live. Each write goes through the same schema and update
// as `/v1`, and writes only the half of the configuration its step shows.

const at = (c: C, id: number, step: Step) => c.redirect(`/panel/webhooks/${id}/start/${step}`, 303);

/** Step 1's page. */
export const startPage = async (c: C) => c.html(nameStep(pageOf(c, true), ''));

/** Creates the webhook by its name alone, in test mode, and goes on to step 2. */
export async function startCreate(c: C, key: KeyRef): Promise<Response> {
  const form = await c.req.parseBody();
  const name = typeof form.name === 'string' ? form.name : '';
  const body = { name, mode: 'test' };
  const parsed = InboundWebhookCreate.safeParse(body);
  const p = pageOf(c, true);
  if (!parsed.success) {
    const error = fieldErrors(parsed.error, body, true)[0];
    return c.html(nameStep(p, name, error ? saidText(p, error) : p.t.fixErrors), 422);
  }
  const row = await createOwn(c.get('db'), key, webhookSpec, parsed.data);
  return at(c, row.id, 2);
}

/**
 * Updates one half of the configuration as `PUT /v1/inbound-webhooks/{id}`, against the webhook
 * as `readHook` read it (one round trip); its errors in words.
 */
async function updateHalf(
  c: C,
  key: KeyRef,
  body: { flows?: unknown; fields?: unknown },
  read: UpdateRead<typeof inboundWebhooks>,
): Promise<string[] | undefined> {
  const p = pageOf(c, true);
  const flows = Array.isArray(body.flows) ? (body.flows as { action?: unknown }[]) : [];
  return (await update(c, key, read.current?.id ?? 0, body, read))?.map((e) => configErrorText(p, e, flows));
}

/**
 * The check of `refs` under the paths `moved` gives the same references: a step reads its owners'
 * check before it knows at which flow each lands (that depends on the stored fields).
 */
function movedRefs(
  read: UpdateRead<typeof inboundWebhooks>,
  moved: Refs,
): UpdateRead<typeof inboundWebhooks> {
  const row = read.found[0] ?? {};
  const byRef = new Map(Object.entries(read.refs).map(([path, ref]) => [JSON.stringify(ref), row[path]]));
  const found = [
    Object.fromEntries(Object.entries(moved).map(([path, ref]) => [path, byRef.get(JSON.stringify(ref))])),
  ];
  return { ...read, refs: moved, found };
}

/**
 * The webhook, its latest test events, the account's users and the references `refs` names: one
 * round trip, which a save's write (`update` with `read`) follows as its second.
 */
async function readHook(c: C, key: KeyRef, id: number, refs: Refs = {}) {
  const db = c.get('db');
  const latest = and(
    eq(inboundEvents.accountId, accountOf(key)),
    eq(inboundEvents.webhookId, id),
    eq(inboundEvents.mode, 'test'),
    ne(inboundEvents.status, 'rejected'),
  );
  const [accountId, hooks, samples, people, events, found] = await scoped(
    db,
    key,
    webhookQuery(db, key, id),
    sampleEvents(db, key, id),
    usersOf(db, key),
    eventQuery(db, latest).orderBy(desc(inboundEvents.receivedAt), desc(inboundEvents.id)).limit(1),
    refsQuery(db, accountOf(key), refs),
  );
  const row = hooks[0];
  if (!row) throw notFound();
  return { row, samples, people, newest: events[0], read: { accountId, current: row, refs, found } };
}

/** The choice a stored field shows: its target, or `-` when it fills none. */
const choiceOf = (f: FieldMapping) => f.target ?? '-';

/** The mapping rows: each key of the latest test events, stored ones as stored, the rest suggested. */
function mapRows(fields: readonly FieldMapping[], samples: { payload: string }[]): MapRow[] {
  const found = sampleFieldsOf(samples).slice(0, MAX_FIELDS);
  const stored = new Map(fields.map((f) => [f.key, f]));
  const guesses = suggestTargets(
    found.filter((s) => !stored.has(s.key)).map((s) => [s.key, s.example]),
    fields.flatMap((f) => (f.target ? [f.target] : [])),
  );
  const guessed = new Map(guesses.map((g) => [g.key, g]));
  return found.map(({ key, example }) => {
    // How the value reads when its target fixes no type: as a custom field would read it.
    const reading = readAs(example);
    const own = stored.get(key);
    const guess = guessed.get(key);
    const usable = declarableKey(key);
    return {
      key,
      example,
      usable,
      choice: own ? choiceOf(own) : usable ? (guess?.target ?? '-') : '',
      type: reading.type,
      formats: reading.formats ?? '',
      locale: reading.locale ?? '',
      custom: customName(key),
    };
  });
}

/** The field a picked row declares: a fixed target fixes its type, any other its value's reading. */
function fieldOf(form: Record<string, unknown>, i: number, stored: Map<string, FieldMapping>) {
  const text = (name: string) =>
    typeof form[`${name}.${i}`] === 'string' ? (form[`${name}.${i}`] as string) : '';
  const key = text('key');
  const choice = text('to');
  const own = stored.get(key);
  // Unchanged: kept exactly as stored (required, formats, locale and all).
  if (own && choiceOf(own) === choice) return own;
  if (choice === '') return undefined;
  const target = choice === '-' ? undefined : choice;
  const fixed =
    target && Object.hasOwn(fixedTargets, target)
      ? fixedTargets[target as keyof typeof fixedTargets][0]
      : undefined;
  const type = fixed ?? text('type');
  const formats = type === 'date' && text('formats') ? { formats: [text('formats')] } : {};
  const locale =
    (type === 'number' || type === 'boolean') && text('locale') ? { locale: text('locale') } : {};
  return { key, type, ...(target ? { target } : {}), ...formats, ...locale } as FieldMapping;
}

/** The guided step pages (2 to 6). */
export async function guidedStep(c: C, key: KeyRef): Promise<Response> {
  const id = idOf(c);
  // Only the steps' own numbers: `02`, `2.0` or `1e0` is no step.
  const raw = c.req.param('step') ?? '';
  if (!/^[2-6]$/.test(raw)) throw notFound();
  const step = Number(raw);
  const { row, samples, people, newest } = await readHook(c, key, id);
  const p = pageOf(c, true);
  const h = viewOf(row, c);
  if (step === 2) {
    const payload = samples[0]?.payload;
    return c.html(eventStep(p, h, payload ? leaves(JSON.parse(payload) as unknown, MAX_FIELDS) : undefined));
  }
  if (step === 3) return c.html(mappingStep(p, h, mapRows(row.fields, samples)));
  if (step === 4) return c.html(flowsStep(p, h, flowChoices(p, row, people, samples)));
  if (step === 5) {
    const owners = new Map(people.map((u) => [u.id, u.name]));
    // A test made before the latest change says nothing of the setup now: never shown as its result.
    const current = newest && newest.receivedAt >= row.updatedAt ? presentEvent(newest) : undefined;
    return c.html(previewStep(p, h, current, owners));
  }
  return c.html(liveStep(p, h));
}

/** Saves the picked mapping: the fields only; a key not shown and the flows are left as stored. */
export async function saveMapping(c: C, key: KeyRef): Promise<Response> {
  const id = idOf(c);
  const form = await c.req.parseBody();
  const { row, samples, read } = await readHook(c, key, id);
  const stored = new Map(row.fields.map((f) => [f.key, f]));
  const shown = new Set<string>();
  const picked: FieldMapping[] = [];
  for (let i = 0; i < MAX_FIELDS && typeof form[`key.${i}`] === 'string'; i++) {
    shown.add(form[`key.${i}`] as string);
    const field = fieldOf(form, i, stored);
    if (field) picked.push(field);
  }
  const fields = [...row.fields.filter((f) => !shown.has(f.key)), ...picked];
  if (JSON.stringify(fields) === JSON.stringify(row.fields)) return at(c, id, 4);
  const errors = await updateHalf(c, key, { fields }, read);
  if (!errors) return at(c, id, 4);
  const p = pageOf(c, true);
  return c.html(mappingStep(p, viewOf(row, c), mapRows(row.fields, samples), errors), 422);
}

/**
 * The deal's name suggested from the stored fields: the contact's name and what they want to buy
 * (`{{nome}} - {{veiculo}}`) when both are mapped, else as much of that as there is.
 */
function suggestedDealName(p: Page, fields: readonly FieldMapping[]): string {
  const name = fields.find((f) => f.target === 'contact.name')?.key;
  const product = fields.find((f) => productKey(f.key))?.key;
  if (name && product) return `{{${name}}} - {{${product}}}`;
  if (name) return `${p.t.gDealName} - {{${name}|${p.t.gNoName}}}`;
  return product ? `${p.t.gDealName} - {{${product}}}` : p.t.gDealName;
}

/** The example event's value of each key, as a template reads it. */
const exampleValues = (samples: { payload: string }[]) =>
  new Map(
    sampleFieldsOf(samples).flatMap(({ key, example }) =>
      ['string', 'number', 'boolean'].includes(typeof example) ? [[key, example as string]] : [],
    ),
  );

/** What the flows step offers, from the stored fields; `dealName` as the person typed it, if any. */
function flowChoices(
  p: Page,
  row: { fields: readonly FieldMapping[]; flows: readonly Action[] },
  users: FlowChoices['users'],
  samples: { payload: string }[],
  dealName?: string,
): FlowChoices {
  const { fields } = row;
  const mapped = (t: string) => fields.some((f) => f.target === t);
  const matchOn = (['phone', 'email'] as const).filter((k) => mapped(`contact.${k}`));
  const name = dealName ?? suggestedDealName(p, fields);
  const values = exampleValues(samples);
  return {
    matchOn,
    cnpj: mapped('company.cnpj'),
    companyName: mapped('company.name'),
    users,
    dealName: name,
    keys: fields.map((f) => f.key),
    example: samples.length ? render(name, (k) => values.get(k)) : undefined,
    values: Object.fromEntries(values),
    existing: row.flows,
  };
}

const formText = (form: Record<string, unknown>, name: string) =>
  typeof form[name] === 'string' ? (form[name] as string) : '';

/** The keys the contact is found by: the person's choice among the mapped ones, else all of them. */
function matchOf(form: Record<string, unknown>, mapped: readonly ('phone' | 'email')[]) {
  const picked = formText(form, 'match').split(',');
  const on = mapped.filter((k) => picked.includes(k));
  return on.length ? on : [...mapped];
}

/** The flows the ticked sentences make, in the order they must run. */
function flowsOf(c: C, form: Record<string, unknown>, fields: readonly FieldMapping[]): Action[] {
  const p = pageOf(c, true);
  const on = (name: string) => form[name] === 'on';
  const owner = (name: string) =>
    typeof form[name] === 'string' && /^\d{1,16}$/.test(form[name] as string)
      ? { owner: { user_id: Number(form[name]) } }
      : {};
  const nameKey = fields.find((f) => f.target === 'contact.name')?.key;
  const mapped = (t: string) => fields.some((f) => f.target === t);
  const matchOn = (['phone', 'email'] as const).filter((k) => mapped(`contact.${k}`));
  const flows: Record<string, unknown>[] = [];
  if (on('contact') && matchOn.length)
    flows.push({ action: 'upsert_contact', match_on: matchOf(form, matchOn) });
  if (on('company') && mapped('company.cnpj')) flows.push({ action: 'upsert_company' });
  if (on('deal') || on('task')) {
    const name = formText(form, 'deal_name').trim() || suggestedDealName(p, fields);
    flows.push({ action: 'create_deal', name, ...owner('deal_owner') });
  }
  if (on('task')) {
    const name = nameKey
      ? `${p.t.gTaskName} {{${nameKey}|${p.t.gTheClient}}}`
      : `${p.t.gTaskName} ${p.t.gTheClient}`;
    const due = { from: 'received_at', days: 0, hours: 2 };
    flows.push({ action: 'create_task', name, category: p.t.gTaskCategory, due, ...owner('task_owner') });
  }
  return flows as Action[];
}

/** Saves the ticked sentences as the flows, when the webhook has none yet; the fields are left alone. */
export async function saveFlows(c: C, key: KeyRef): Promise<Response> {
  const id = idOf(c);
  const form = await c.req.parseBody();
  // The owners chosen are checked in the read: who they are does not depend on the fields.
  const { row, people, samples, read } = await readHook(c, key, id, ownerRefs(flowsOf(c, form, [])));
  // Flows made in the full form are changed there: this step never replaces them.
  if (row.flows.length) return at(c, id, 5);
  const flows = flowsOf(c, form, row.fields);
  const errors = flows.length
    ? await updateHalf(c, key, { flows }, movedRefs(read, ownerRefs(flows)))
    : undefined;
  if (!errors) return at(c, id, 5);
  const p = pageOf(c, true);
  const typed = formText(form, 'deal_name');
  return c.html(flowsStep(p, viewOf(row, c), flowChoices(p, row, people, samples, typed), errors), 422);
}

/**
 * Sends the latest test event's body again through the webhook's own URL, in test mode only (it
 * writes nothing), so step 5 shows what the configuration now makes of it.
 */
export const resendExample =
  (deliver: Deliver) =>
  async (c: C, key: KeyRef): Promise<Response> => {
    const id = idOf(c);
    const { row, samples } = await readHook(c, key, id);
    const body = samples[0]?.payload;
    if (body && row.enabled && row.mode === 'test')
      await post(c, deliver, { webhook: row, body, headers: await senderHeaders(row.secret, body) });
    return at(c, id, 5);
  };
