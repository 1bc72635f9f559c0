import fc, { type Arbitrary } from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { withCheckDigits } from '../cnpj';
import { call, create, d1Of, type Json, newAccount, newWebhook, postEvent } from '../helpers';
import {
  EVENT_FIELDS,
  email,
  eventFlows,
  eventKeyHints,
  flowsFor,
  fromSchema,
  goodCnpj,
  KIND_OF_FIELD,
  KIND_OF_SEGMENT,
  type Kind,
  phone,
  plainText,
  refHints,
  segmentBefore,
} from './arbitraries';
import { contract, SEED, settings, snapshot, TIMEOUT } from './checks';

const api = await contract();

/**
 * Everything an account holds, generated: each text of account B carries `mark`, its emails a
 * domain of its own and its phones an area code of their own, so any of them in a response to A
 * is a leak.
 */
const dataset = (mark: string, domain: string, areaCode: number) => {
  const text = plainText(1, 16).map((t) => `${t}${mark}`);
  const index = fc.nat(9);
  return fc
    .record({
      users: fc.uniqueArray(fc.stringMatching(/^[a-z]{3,8}$/), { minLength: 2, maxLength: 3 }),
      companies: fc.uniqueArray(
        fc.record({
          name: text,
          cnpj: fc.stringMatching(/^[1-9]\d{11}$/).map(withCheckDigits),
          segment: text,
          observations: text,
          owner: index,
          followers: fc.array(index, { maxLength: 3 }),
        }),
        { minLength: 2, maxLength: 3, selector: (c) => c.cnpj },
      ),
      contacts: fc.array(
        fc.record({
          name: text,
          phone: fc.stringMatching(/^9\d{8}$/),
          company: index,
          owner: index,
          note: text,
        }),
        { minLength: 2, maxLength: 3 },
      ),
      deals: fc.array(
        fc.record({
          name: text,
          company: index,
          contact: index,
          owner: index,
          status: fc.constantFrom('open', 'won', 'lost'),
          value: fc.integer({ min: 0, max: 1e9 }),
        }),
        { minLength: 2, maxLength: 3 },
      ),
      tasks: fc.array(
        fc.record({
          name: text,
          category: text,
          description: text,
          deal: index,
          owner: index,
          done: fc.boolean(),
        }),
        { minLength: 2, maxLength: 4 },
      ),
      webhooks: fc.array(fc.record({ name: text, owner: index, test: fc.boolean() }), {
        minLength: 1,
        maxLength: 2,
      }),
      events: fc.array(fc.record({ nome: text, hook: index }), { minLength: 1, maxLength: 3 }),
    })
    .map((data) => ({ ...data, mark, domain, areaCode }));
};

type Dataset = ReturnType<typeof dataset> extends Arbitrary<infer D> ? D : never;

type Account = {
  id: number;
  key: string;
  ids: Record<Kind | 'categories', number[]>;
  /** Texts only this account has: its marked texts, emails, phones, CNPJs and webhook tokens. */
  unique: string[];
  /** Its names, segments and categories, for filters. */
  texts: string[];
};

const pick = <T>(list: T[], i: number): T => list[i % list.length] as T;

/** Writes a dataset through the API, as its account's key. */
async function populate(data: Dataset): Promise<Account> {
  const { id, key } = await newAccount();
  // One at a time, in order: later rows name the ids of earlier ones.
  const postEach = async <T>(path: string, items: T[], body: (item: T, i: number) => unknown) => {
    const ids: number[] = [];
    for (const [i, item] of items.entries()) ids.push((await create(key, path, body(item, i))).id);
    return ids;
  };
  const users = await postEach('/v1/users', data.users, (u) => ({
    name: `${u}${data.mark}`,
    email: `${u}@${data.domain}`,
  }));
  const companies = await postEach('/v1/companies', data.companies, (c) => ({
    name: c.name,
    cnpj: c.cnpj,
    segment: c.segment,
    observations: c.observations,
    owner_id: pick(users, c.owner),
    follower_ids: c.followers.map((f) => pick(users, f)),
  }));
  const phones = data.contacts.map((c) => `+55${data.areaCode}${c.phone}`);
  const contacts = await postEach('/v1/contacts', data.contacts, (c, i) => ({
    name: c.name,
    email: `contact${i}@${data.domain}`,
    phone: phones[i],
    company_id: pick(companies, c.company),
    owner_id: pick(users, c.owner),
    custom_fields: { note: c.note },
  }));
  const deals = await postEach('/v1/deals', data.deals, (d) => ({
    name: d.name,
    status: d.status,
    value: d.value,
    company_id: pick(companies, d.company),
    contact_id: pick(contacts, d.contact),
    owner_id: pick(users, d.owner),
  }));
  const tasks = await postEach('/v1/tasks', data.tasks, (t) => ({
    name: t.name,
    category: t.category,
    description: t.description,
    deal_id: pick(deals, t.deal),
    owner_id: pick(users, t.owner),
    is_completed: t.done,
    due_date: '2026-12-01T10:00:00-03:00',
  }));
  const hooks: Json[] = [];
  for (const w of data.webhooks) {
    const flows = flowsFor(pick(users, w.owner), users);
    hooks.push(
      await newWebhook(key, {
        name: w.name,
        mode: w.test ? 'test' : 'production',
        fields: EVENT_FIELDS,
        flows,
      }),
    );
  }
  for (const e of data.events) {
    // `__fault: send` keeps the events pending: no Queue consumer writes behind the comparisons.
    const res = await postEvent(pick(hooks, e.hook).path, {
      email: `lead@${data.domain}`,
      nome: e.nome,
      __fault: 'send',
    });
    expect(res.status).toBe(204);
  }
  const rows = async (table: string) =>
    (
      await d1Of(id)
        .prepare(`select id from ${table} where account_id = ? order by id`)
        .bind(id)
        .all<{ id: number }>()
    ).results.map((r) => r.id);
  const events = await rows('inbound_events');
  // One failed event, so that a replay of it by another account would have something to re-queue.
  await d1Of(id)
    .prepare(`update inbound_events set status = 'failed', error = 'x' where id = ?`)
    .bind(events[0])
    .run();
  return {
    id,
    key,
    ids: {
      users,
      companies,
      contacts,
      deals,
      tasks,
      webhooks: hooks.map((h) => h.id),
      events,
      categories: await rows('task_categories'),
    },
    texts: [
      ...data.companies.flatMap((c) => [c.name, c.segment]),
      ...data.contacts.map((c) => c.name),
      ...data.deals.map((d) => d.name),
      ...data.tasks.flatMap((t) => [t.name, t.category]),
    ],
    unique: [
      data.mark,
      `@${data.domain}`,
      ...phones,
      ...data.companies.map((c) => c.cnpj),
      ...hooks.map((h) => h.path.split('/').at(-1)),
    ],
  };
}

let a: Account;
let b: Account;

beforeAll(async () => {
  const [dataA, dataB] = fc.sample(
    fc.tuple(dataset('', 'alpha.example', 11), dataset('§', 'beta.example', 21)),
    {
      seed: SEED,
      numRuns: 1,
    },
  )[0] as [Dataset, Dataset];
  a = await populate(dataA);
  b = await populate(dataB);
});

/** B's ids named anywhere in a response body: by each id field's kind, and `id` by the resource listed. */
function leakedIds(value: unknown, kind: Kind | 'categories' | undefined, found: string[] = []): string[] {
  if (Array.isArray(value)) {
    for (const item of value) leakedIds(item, kind, found);
  } else if (value !== null && typeof value === 'object') {
    for (const [field, inner] of Object.entries(value)) {
      // Event payloads are what the sender posted, not references.
      if (field === 'payload') continue;
      const named = field === 'id' ? kind : KIND_OF_FIELD[field];
      const ids = [inner].flat().filter((v): v is number => typeof v === 'number');
      if (named)
        for (const id of ids) if (b.ids[named].includes(id)) found.push(`${field}: ${id} (${named} of B)`);
      if (typeof inner === 'object') leakedIds(inner, field === 'data' ? kind : undefined, found);
    }
  }
  return found;
}

/** What the rows of a path are: its last segment that names a kind. */
function kindOf(path: string): Kind | 'categories' | undefined {
  if (path === '/v1/task-categories') return 'categories';
  const named = path.split('/').findLast((segment) => KIND_OF_SEGMENT[segment]);
  return named ? KIND_OF_SEGMENT[named] : undefined;
}

/** A's ids or B's, of a kind. */
const either = (kind: Kind): Arbitrary<number> =>
  fc.oneof(fc.constantFrom(...a.ids[kind]), fc.constantFrom(...b.ids[kind]));

/** A filter's value: ids of A or B, B's texts whole or in part, or dates and flags. */
function filterValue(name: string, query: Json): Arbitrary<string> {
  const kind = KIND_OF_FIELD[name];
  if (kind) return fc.array(either(kind), { minLength: 1, maxLength: 3 }).map((ids) => ids.join(','));
  if (/__(gte|lte|gt|lt)$/.test(name))
    return fc.constantFrom('2000-01-01', '2026-12-01', '2100-01-01T00:00:00Z');
  if (query.schema?.enum) return fc.constantFrom(...query.schema.enum.map(String));
  if (name === 'status') return fc.constantFrom('open', 'won,lost');
  if (name === 'is_completed') return fc.constantFrom('true', 'false');
  const text = fc.constantFrom(...b.texts, ...a.texts, ...b.unique);
  const part = fc
    .tuple(text, fc.nat(), fc.nat())
    .map(([t, i, j]) => t.slice(i % t.length, (i % t.length) + 1 + (j % 4)));
  return fc
    .oneof(
      text,
      part,
      text.map((t) => t.toUpperCase()),
    )
    .filter((v) => v.trim().length > 0);
}

type Draft = {
  method: string;
  path: string;
  params: Record<string, number>;
  query: [string, string][];
  body: unknown;
};

/** Any /v1 operation as A: path ids of A or B, lists under filters naming B, bodies referencing B's rows. */
function draft(): Arbitrary<Draft> {
  const operations = api.operations().filter((o) => o.path.startsWith('/v1/'));
  const hints = {
    ...refHints(either),
    cnpj: goodCnpj,
    email,
    phone,
    fields: fc.constant(EVENT_FIELDS),
    flows: eventFlows(either('users')),
    ...eventKeyHints,
  };
  return fc.constantFrom(...operations).chain((operation) => {
    const pathParams = api.parameters(operation, 'path');
    const params = fc.record(
      Object.fromEntries(
        pathParams.map((p) => [
          p.name,
          either(KIND_OF_SEGMENT[segmentBefore(operation.path, p.name)] ?? 'users'),
        ]),
      ) as Record<string, Arbitrary<number>>,
    );
    // Small pages, so that the walk goes through several of them.
    const queries = api.parameters(operation, 'query').filter((p) => !['cursor', 'limit'].includes(p.name));
    const paged = api.parameters(operation, 'query').some((p) => p.name === 'limit');
    const query = fc
      .tuple(
        fc
          .subarray(queries)
          .chain((chosen) =>
            fc.tuple(...chosen.map((p) => filterValue(p.name, p).map((v): [string, string] => [p.name, v]))),
          ),
        fc.integer({ min: 1, max: 3 }),
      )
      .map(([filters, size]): [string, string][] =>
        paged ? [...filters, ['limit', String(size)]] : filters,
      );
    const schema = api.requestSchema(operation);
    const body = schema ? fromSchema(api, schema, hints) : fc.constant(undefined);
    const { method, path } = operation;
    return fc.record({ method: fc.constant(method), path: fc.constant(path), params, query, body });
  });
}

describe("tenant isolation: every request with account A's key", () => {
  it(
    "returns nothing of account B and changes nothing of B's",
    async () => {
      const before = await snapshot([b.id]);
      const runs = { requests: 0, pages: 0, written: 0 };
      await fc.assert(
        fc.asyncProperty(draft(), async ({ method, path: template, params, query, body }) => {
          const operation = api.operation(method, template);
          const path = template.replace(/\{([^}]+)\}/g, (_, name: string) => String(params[name]));
          let url: string | null = `${path}${query.length ? `?${new URLSearchParams(query)}` : ''}`;
          // A list is followed through its pages, so every row the filters let through is seen.
          for (let page = 0; url && page < 3; page++) {
            const res = await call(url, { method: operation.method.toUpperCase(), key: a.key, body });
            const where = `${operation.method.toUpperCase()} ${url} ${JSON.stringify(body) ?? ''}`;
            const text = await res.clone().text();
            const parsed = await api.expectDocumented(operation, res, where);
            runs.requests++;
            if (res.status < 300) {
              for (const unique of b.unique) expect(text, `${where}: B's "${unique}"`).not.toContain(unique);
              expect(leakedIds(parsed, kindOf(operation.path)), where).toEqual([]);
              if (operation.method !== 'get') runs.written++;
            }
            const next = parsed?.meta?.next_cursor;
            url =
              typeof next === 'string'
                ? `${path}?${new URLSearchParams([...query, ['cursor', next]])}`
                : null;
            if (url) runs.pages++;
          }
          expect(await snapshot([b.id])).toEqual(before);
        }),
        settings(300),
      );
      // The property saw successful writes and next pages, not only refusals.
      expect(runs.written).toBeGreaterThan(0);
      expect(runs.pages).toBeGreaterThan(0);
    },
    TIMEOUT,
  );
});
