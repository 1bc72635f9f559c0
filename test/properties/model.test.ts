import fc, { type Arbitrary } from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mask, withCheckDigits } from '../cnpj';
import { call, create, type Json, newAccount } from '../helpers';
import { contract, settings, TIMEOUT } from './checks';

/**
 * A model of companies and tasks: what docs/api.md says the API stores and how lists filter, sort and
 * page, reimplemented plainly. Generated texts keep it plain: ASCII letters, digits and spaces, plus
 * ç and ã, for which the API's normalisation (NFC, Unicode lower case, final sigma folded) is
 * toLowerCase(), and names from a small vocabulary in mixed case, so that equality filters, ties
 * and substrings all occur.
 */

const api = await contract();

const norm = (text: string): string => text.toLowerCase();
const DAY = 86_400_000;

type Company = {
  id: number;
  name: string;
  cnpj: string;
  owner_id: number | null;
  segment: string | null;
  observations: string | null;
  follower_ids: number[];
  deal_count: number;
  lead_count: number;
  // The model never writes one.
  external_id: null;
  created_at: string;
  updated_at: string;
  deleted_at: null;
};

type Task = {
  id: number;
  deal_id: number;
  name: string;
  description: string | null;
  due_date: string | null;
  category: string;
  owner_ids: number[];
  is_completed: boolean;
  completed_at: string | null;
  external_id: null;
  created_at: string;
  updated_at: string;
  deleted_at: null;
};

type Model = {
  users: number[];
  deals: number[];
  companies: Company[];
  tasks: Task[];
  /** Tasks deleted and not restored: out of every read but their own restore. */
  trashedTasks: Task[];
  /** Category spellings by normalised name: the first use's spelling stays. */
  categories: Map<string, string>;
};

type Real = { key: string };

const pick = <T>(list: readonly T[], i: number): T => list[i % list.length] as T;

// ---- Generated values ---------------------------------------------------------------------------

const WORDS = ['Alpha', 'alpha', 'ALPHA Beta', 'Beta', 'beta 2', 'Gamma', 'Ação', 'AÇÃO'];
const word = fc.constantFrom(...WORDS);
/** A name as sent: surrounding spaces are trimmed by the API. */
const name = fc.tuple(word, fc.constantFrom('', ' ', '  ')).map(([w, pad]) => `${pad}${w}${pad}`);
/** Optional free text: null and blank clear it; absent keeps it. */
const freeText = fc.oneof(name, fc.constant(null), fc.constantFrom('', '   '));
const CNPJS = [
  '112223330001',
  '12ABC34501DE',
  '987654320001',
  'ZZ1234567890',
  '100200300040',
  'AB0000000001',
  '555555550001',
  '0A1B2C3D4E5F',
].map(withCheckDigits);
/** One of a few CNPJs (so duplicates occur), in any accepted form. */
const cnpj = fc.tuple(fc.nat(CNPJS.length - 1), fc.nat(2)).map(([i, form]) => {
  const value = CNPJS[i] as string;
  return [value, mask(value), ` ${mask(value).toLowerCase()} `][form] as string;
});
const canonical = (value: string): string => value.trim().replace(/[./-]/g, '').toUpperCase();
/** A few instants (so ties occur) and any other one, sent with any offset. */
const INSTANTS = ['2026-03-05T12:00:00.000Z', '2026-03-05T23:59:59.999Z', '2026-03-06T00:00:00.000Z'].map(
  Date.parse,
);
const instant = fc.oneof(
  fc.constantFrom(...INSTANTS),
  fc.integer({ min: Date.parse('2025-01-01'), max: Date.parse('2028-01-01') }),
);
const withOffset = (ms: number, minutes: number): string => {
  if (minutes === 0) return new Date(ms).toISOString();
  const sign = minutes < 0 ? '-' : '+';
  const hh = String(Math.floor(Math.abs(minutes) / 60)).padStart(2, '0');
  const mm = String(Math.abs(minutes) % 60).padStart(2, '0');
  return `${new Date(ms + minutes * 60_000).toISOString().slice(0, -1)}${sign}${hh}:${mm}`;
};
const dueDate = fc
  .tuple(instant, fc.constantFrom(0, -180, 330, 60))
  .map(([ms, offset]) => ({ ms, text: withOffset(ms, offset) }));
const CATEGORIES = ['Ligação', 'LIGAÇÃO', ' ligação ', 'E-mail', 'e-mail', 'Visita'];
const limit = fc.integer({ min: 1, max: 4 });

// ---- Talking to the API ---------------------------------------------------------------------------

async function send(
  key: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: Json }> {
  const res = await call(path, { method, key, body });
  const template = path.replace(/\/\d+(\/restore)?$/, '/{id}$1').replace(/\?.*$/, '');
  const parsed = await api.expectDocumented(
    api.operation(method.toLowerCase(), template),
    res,
    `${method} ${path}`,
  );
  return { status: res.status, body: parsed };
}

/** Every row of a list, following `meta.next_cursor` with the same query. */
async function listAll(key: string, path: string, query: Record<string, string>): Promise<Json[]> {
  const rows: Json[] = [];
  let cursor: string | null = null;
  do {
    const params = new URLSearchParams(cursor ? { ...query, cursor } : query);
    const { status, body } = await send(key, 'GET', `${path}?${params}`);
    expect(status, `${path}?${params}`).toBe(200);
    expect(body.data.length).toBeLessThanOrEqual(Number(query.limit));
    rows.push(...body.data);
    cursor = body.meta.next_cursor;
  } while (cursor);
  return rows;
}

/** Rows in a documented order: by `key`, ties by id, the whole order reversed by `-`. */
function sortBy<T extends { id: number }>(rows: T[], sort: string, key: (row: T) => string | number): T[] {
  const descending = sort.startsWith('-');
  return [...rows].sort((x, y) => {
    const [a, b] = [key(x), key(y)];
    const order = a < b ? -1 : a > b ? 1 : x.id - y.id;
    return descending ? -order : order;
  });
}

type Bound = { op: 'gte' | 'lte' | 'gt' | 'lt'; value: string };

/** The instant a bound compares with: a bare date is its UTC day's start (gte, lt) or end (lte, gt). */
const boundMs = ({ op, value }: Bound): number =>
  value.length === 10 ? Date.parse(value) + (op === 'lte' || op === 'gt' ? DAY - 1 : 0) : Date.parse(value);

const within = (ms: number, bound: Bound): boolean => {
  const limitMs = boundMs(bound);
  return { gte: ms >= limitMs, lte: ms <= limitMs, gt: ms > limitMs, lt: ms < limitMs }[bound.op];
};

/** A bound near a timestamp the model holds (just before, at, just after it, or its day). */
const bound = fc.record({
  op: fc.constantFrom('gte', 'lte', 'gt', 'lt') as Arbitrary<Bound['op']>,
  of: fc.nat(),
  shift: fc.constantFrom(-1, 0, 1, 'day' as const),
});

function boundNear(
  times: number[],
  { op, of, shift }: { op: Bound['op']; of: number; shift: number | 'day' },
): Bound {
  const ms = times.length ? pick(times, of) : (INSTANTS[0] as number);
  return {
    op,
    value: shift === 'day' ? new Date(ms).toISOString().slice(0, 10) : new Date(ms + shift).toISOString(),
  };
}

// ---- Companies ------------------------------------------------------------------------------------

const trimmed = (text: string | null): string | null => (text === null ? null : text.trim() || null);

type CompanyInput = {
  name?: string;
  cnpj?: string;
  owner?: number | null;
  segment?: string | null;
  observations?: string | null;
  followers?: number[];
};

function companyBody(model: Model, input: CompanyInput): Record<string, unknown> {
  return {
    ...(input.name !== undefined && { name: input.name }),
    ...(input.cnpj !== undefined && { cnpj: input.cnpj }),
    ...(input.owner !== undefined && {
      owner_id: input.owner === null ? null : pick(model.users, input.owner),
    }),
    ...(input.segment !== undefined && { segment: input.segment }),
    ...(input.observations !== undefined && { observations: input.observations }),
    ...(input.followers !== undefined && { follower_ids: input.followers.map((f) => pick(model.users, f)) }),
  };
}

/** The company a body makes of `current` (or of nothing, on create). */
function appliedCompany<C extends Omit<Company, 'id' | 'created_at' | 'updated_at'>>(
  current: C,
  body: Json,
): C {
  return {
    ...current,
    ...(body.name !== undefined && { name: body.name.trim() }),
    ...(body.cnpj !== undefined && { cnpj: canonical(body.cnpj) }),
    ...(body.owner_id !== undefined && { owner_id: body.owner_id }),
    ...(body.segment !== undefined && { segment: trimmed(body.segment) }),
    ...(body.observations !== undefined && { observations: trimmed(body.observations) }),
    ...(body.follower_ids !== undefined && {
      follower_ids: [...new Set<number>(body.follower_ids)].sort((a, b) => a - b),
    }),
  };
}

const BLANK_COMPANY = {
  name: '',
  cnpj: '',
  owner_id: null,
  segment: null,
  observations: null,
  follower_ids: [],
  deal_count: 0,
  lead_count: 0,
  external_id: null,
  // The model has no deletes: every row it knows is live.
  deleted_at: null,
};

/** GET of a row the model holds: exactly the model's row. */
/** A list of the API and how the model answers it. */
type Listing<T, F> = {
  path: string;
  rows: (model: Model) => T[];
  condition: (model: Model, filter: F) => Condition<T>;
  order: (rows: T[], sort: string) => T[];
};

/** Every page of a list under filters, a sort and a page size: exactly the model's rows, in order. */
class List<T, F> implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly listing: Listing<T, F>,
    readonly filters: F[],
    readonly sort: string | undefined,
    readonly limit: number,
  ) {}
  check = () => true;
  async run(model: Model, { key }: Real) {
    const query: Record<string, string> = {
      limit: String(this.limit),
      ...(this.sort && { sort: this.sort }),
    };
    const conditions = this.filters.map((filter) => this.listing.condition(model, filter));
    const expected = this.listing.order(
      applyFilters(query, this.listing.rows(model), conditions),
      this.sort ?? '-created_at',
    );
    expect(await listAll(key, this.listing.path, query), JSON.stringify(query)).toEqual(expected);
  }
  toString = () => `List(${this.listing.path}, ${JSON.stringify(this.filters)}, ${this.sort}, ${this.limit})`;
}

class GetOne implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly resource: 'companies' | 'tasks',
    readonly target: number,
  ) {}
  check = (model: Readonly<Model>) => model[this.resource].length > 0;
  async run(model: Model, { key }: Real) {
    const row = pick<Company | Task>(model[this.resource], this.target);
    const res = await send(key, 'GET', `/v1/${this.resource}/${row.id}`);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual(row);
  }
  toString = () => `GetOne(${this.resource}, ${this.target})`;
}

/** A PUT's answer: 200 with exactly the updated row, whose updated_at moved forward; the model takes it. */
function expectUpdated<T extends { updated_at: string }>(
  res: { status: number; body: Json },
  current: T,
  updated: T,
) {
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body.data).toEqual(updated);
  expect(Date.parse(updated.updated_at)).toBeGreaterThan(Date.parse(current.updated_at));
  Object.assign(current, updated);
}

class CreateCompany implements fc.AsyncCommand<Model, Real> {
  constructor(readonly input: CompanyInput & { name: string; cnpj: string }) {}
  check = () => true;
  async run(model: Model, { key }: Real) {
    const body = companyBody(model, this.input);
    const res = await send(key, 'POST', '/v1/companies', body);
    if (model.companies.some((c) => c.cnpj === canonical(this.input.cnpj))) {
      expect(res.status, 'a CNPJ the account has').toBe(409);
      return;
    }
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const { id, created_at, updated_at } = res.body.data;
    expect(updated_at).toBe(created_at);
    const company = { id, ...appliedCompany(BLANK_COMPANY, body), created_at, updated_at };
    expect(res.body.data).toEqual(company);
    model.companies.push(company);
  }
  toString = () => `CreateCompany(${JSON.stringify(this.input)})`;
}

class UpdateCompany implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly target: number,
    readonly input: CompanyInput & { sameCnpj: boolean },
  ) {}
  check = (model: Readonly<Model>) => model.companies.length > 0;
  async run(model: Model, { key }: Real) {
    const current = pick(model.companies, this.target);
    const cnpj =
      this.input.cnpj === undefined ? undefined : this.input.sameCnpj ? mask(current.cnpj) : this.input.cnpj;
    const body = companyBody(model, { ...this.input, cnpj });
    const res = await send(key, 'PUT', `/v1/companies/${current.id}`, body);
    if (cnpj !== undefined && canonical(cnpj) !== current.cnpj) {
      expect(res.status, 'a CNPJ cannot change').toBe(422);
      return;
    }
    expectUpdated(res, current, { ...appliedCompany(current, body), updated_at: res.body.data.updated_at });
  }
  toString = () => `UpdateCompany(${this.target}, ${JSON.stringify(this.input)})`;
}

type CompanyFilter =
  | { name: string }
  | { name__contains: string }
  | { cnpj: string }
  | { owner_id: number[] }
  | { segment: string }
  | { segment__contains: string }
  | { created_at: { op: Bound['op']; of: number; shift: number | 'day' } };

/** A filter as its query parameter, its value, and the rows the documented rule keeps. */
type Condition<T> = [param: string, value: string, keep: (row: T) => boolean];

/** Applies each condition whose parameter the query does not have yet (a query names each once). */
function applyFilters<T>(query: Record<string, string>, rows: T[], conditions: Condition<T>[]): T[] {
  let kept = rows;
  for (const [param, value, keep] of conditions) {
    if (param in query) continue;
    query[param] = value;
    kept = kept.filter(keep);
  }
  return kept;
}

function companyCondition(model: Model, filter: CompanyFilter): Condition<Company> {
  if ('name' in filter) return ['name', filter.name, (c) => norm(c.name) === norm(filter.name.trim())];
  if ('name__contains' in filter) {
    const part = filter.name__contains;
    return ['name__contains', part, (c) => norm(c.name).includes(norm(part))];
  }
  if ('cnpj' in filter) return ['cnpj', filter.cnpj, (c) => c.cnpj === canonical(filter.cnpj)];
  if ('owner_id' in filter) {
    const owners = filter.owner_id.map((i) => pick(model.users, i));
    return ['owner_id', owners.join(','), (c) => c.owner_id !== null && owners.includes(c.owner_id)];
  }
  if ('segment' in filter) {
    const value = filter.segment;
    return ['segment', value, (c) => c.segment !== null && norm(c.segment) === norm(value.trim())];
  }
  if ('segment__contains' in filter) {
    const part = filter.segment__contains;
    return ['segment__contains', part, (c) => c.segment !== null && norm(c.segment).includes(norm(part))];
  }
  const b = boundNear(
    model.companies.map((c) => Date.parse(c.created_at)),
    filter.created_at,
  );
  return [`created_at__${b.op}`, b.value, (c) => within(Date.parse(c.created_at), b)];
}

const companyListing: Listing<Company, CompanyFilter> = {
  path: '/v1/companies',
  rows: (model) => model.companies,
  condition: companyCondition,
  order: (rows, sort) =>
    sortBy(rows, sort, (c) => (sort.endsWith('name') ? norm(c.name) : Date.parse(c.created_at))),
};

const userIndex = fc.nat(2);

const companyFields = {
  name,
  cnpj,
  owner: fc.option(userIndex, { nil: null }),
  segment: freeText,
  observations: freeText,
  followers: fc.array(userIndex, { maxLength: 4 }),
};

const substring = fc
  .tuple(word, fc.nat(), fc.integer({ min: 1, max: 4 }))
  .map(([w, at, length]) => w.slice(at % w.length, (at % w.length) + length).toUpperCase());

const companyCommands = [
  fc
    .record(companyFields, { requiredKeys: ['name', 'cnpj'] })
    .map((input) => new CreateCompany(input as CompanyInput & { name: string; cnpj: string })),
  fc
    .tuple(
      fc.nat(),
      // A CNPJ sent is the company's own (a client PUTting back what it read) or another, which is refused.
      fc.record({ ...companyFields, sameCnpj: fc.boolean() }, { requiredKeys: ['sameCnpj'] }),
    )
    .map(([target, input]) => new UpdateCompany(target, input)),
  fc.nat().map((target) => new GetOne('companies', target)),
  fc
    .tuple(
      fc.array(
        fc.oneof(
          name.map((v) => ({ name: v })),
          substring.map((v) => ({ name__contains: v })),
          cnpj.map((v) => ({ cnpj: v })),
          fc.array(userIndex, { minLength: 1, maxLength: 2 }).map((v) => ({ owner_id: v })),
          name.map((v) => ({ segment: v })),
          substring.map((v) => ({ segment__contains: v })),
          bound.map((v) => ({ created_at: v })),
        ),
        { maxLength: 2 },
      ),
      fc.option(fc.constantFrom('name', '-name', 'created_at', '-created_at'), { nil: undefined }),
      limit,
    )
    .map(([filters, sort, pageSize]) => new List(companyListing, filters as CompanyFilter[], sort, pageSize)),
];

// ---- Tasks ----------------------------------------------------------------------------------------

type TaskInput = {
  deal?: number;
  name?: string;
  category?: string;
  description?: string | null;
  due?: { ms: number; text: string } | null;
  owner?: number | null;
  done?: boolean;
};

function taskBody(model: Model, input: TaskInput): Record<string, unknown> {
  return {
    ...(input.deal !== undefined && { deal_id: pick(model.deals, input.deal) }),
    ...(input.name !== undefined && { name: input.name }),
    ...(input.category !== undefined && { category: input.category }),
    ...(input.description !== undefined && { description: input.description }),
    ...(input.due !== undefined && { due_date: input.due === null ? null : input.due.text }),
    ...(input.owner !== undefined && {
      owner_id: input.owner === null ? null : pick(model.users, input.owner),
    }),
    ...(input.done !== undefined && { is_completed: input.done }),
  };
}

/** The task a body makes of `current`; `completedAt` is the server's time when it completes it now. */
function appliedTask<T extends Omit<Task, 'id' | 'created_at' | 'updated_at'>>(
  model: Model,
  current: T,
  input: TaskInput,
  completedAt: string | null,
): T {
  let category = current.category;
  if (input.category !== undefined) {
    const key = norm(input.category.trim());
    category = model.categories.get(key) ?? input.category.trim();
    model.categories.set(key, category);
  }
  const completes = input.done === true && !current.is_completed;
  return {
    ...current,
    ...(input.deal !== undefined && { deal_id: pick(model.deals, input.deal) }),
    ...(input.name !== undefined && { name: input.name.trim() }),
    category,
    ...(input.description !== undefined && { description: trimmed(input.description) }),
    ...(input.due !== undefined && {
      due_date: input.due === null ? null : new Date(input.due.ms).toISOString(),
    }),
    ...(input.owner !== undefined && {
      owner_ids: input.owner === null ? [] : [pick(model.users, input.owner)],
    }),
    ...(input.done !== undefined && {
      is_completed: input.done,
      completed_at: input.done ? (completes ? completedAt : current.completed_at) : null,
    }),
  };
}

const BLANK_TASK = {
  deal_id: 0,
  name: '',
  description: null,
  due_date: null,
  category: '',
  owner_ids: [],
  is_completed: false,
  completed_at: null,
  external_id: null,
  deleted_at: null,
};

class CreateTask implements fc.AsyncCommand<Model, Real> {
  constructor(readonly input: TaskInput & { deal: number; name: string; category: string }) {}
  check = () => true;
  async run(model: Model, { key }: Real) {
    const res = await send(key, 'POST', '/v1/tasks', taskBody(model, this.input));
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const { id, created_at, updated_at, completed_at } = res.body.data;
    expect(updated_at).toBe(created_at);
    const task = { id, ...appliedTask(model, BLANK_TASK, this.input, completed_at), created_at, updated_at };
    if (task.is_completed) expect(completed_at).toEqual(expect.any(String));
    expect(res.body.data).toEqual(task);
    model.tasks.push(task);
  }
  toString = () => `CreateTask(${JSON.stringify(this.input)})`;
}

class UpdateTask implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly target: number,
    readonly input: TaskInput,
  ) {}
  check = (model: Readonly<Model>) => model.tasks.length > 0;
  async run(model: Model, { key }: Real) {
    const current = pick(model.tasks, this.target);
    // deal_id is immutable: it may be sent, and then only as it is.
    const input = {
      ...this.input,
      ...(this.input.deal !== undefined && { deal: model.deals.indexOf(current.deal_id) }),
    };
    const res = await send(key, 'PUT', `/v1/tasks/${current.id}`, taskBody(model, input));
    const updated = {
      ...appliedTask(model, current, input, res.body.data?.completed_at),
      updated_at: res.body.data?.updated_at,
    };
    if (updated.is_completed) expect(updated.completed_at).toEqual(expect.any(String));
    expectUpdated(res, current, updated);
  }
  toString = () => `UpdateTask(${this.target}, ${JSON.stringify(this.input)})`;
}

/** DELETE: 204, then the task is out of every read (a GET is a 404) and its category counts it no more. */
class DeleteTask implements fc.AsyncCommand<Model, Real> {
  constructor(readonly target: number) {}
  check = (model: Readonly<Model>) => model.tasks.length > 0;
  async run(model: Model, { key }: Real) {
    const task = pick(model.tasks, this.target);
    expect((await send(key, 'DELETE', `/v1/tasks/${task.id}`)).status).toBe(204);
    expect((await send(key, 'GET', `/v1/tasks/${task.id}`)).status).toBe(404);
    model.tasks = model.tasks.filter((t) => t !== task);
    model.trashedTasks.push(task);
  }
  toString = () => `DeleteTask(${this.target})`;
}

/** Restore: 200 with the task exactly as it was deleted, back in every read. */
class RestoreTask implements fc.AsyncCommand<Model, Real> {
  constructor(readonly target: number) {}
  check = (model: Readonly<Model>) => model.trashedTasks.length > 0;
  async run(model: Model, { key }: Real) {
    const task = pick(model.trashedTasks, this.target);
    const res = await send(key, 'POST', `/v1/tasks/${task.id}/restore`);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual(task);
    model.trashedTasks = model.trashedTasks.filter((t) => t !== task);
    model.tasks.push(task);
  }
  toString = () => `RestoreTask(${this.target})`;
}

type TaskFilter =
  | { deal_id: number[] }
  | { category: string }
  | { owner_id: number[] }
  | { is_completed: boolean }
  | { due_date: { op: Bound['op']; of: number; shift: number | 'day' } };

const TASK_SORT_KEYS: Record<string, (t: Task) => number> = {
  due_date: (t) => (t.due_date === null ? Number.NaN : Date.parse(t.due_date)),
  deal_id: (t) => t.deal_id,
  updated_at: (t) => Date.parse(t.updated_at),
  created_at: (t) => Date.parse(t.created_at),
};

/** Tasks in a documented order; tasks without a due date come last in both directions of due_date. */
function sortTasks(rows: Task[], sort: string): Task[] {
  const field = sort.replace(/^-/, '');
  const key = TASK_SORT_KEYS[field] as (t: Task) => number;
  if (field !== 'due_date') return sortBy(rows, sort, key);
  return [
    ...sortBy(
      rows.filter((t) => t.due_date !== null),
      sort,
      key,
    ),
    ...sortBy(
      rows.filter((t) => t.due_date === null),
      sort,
      (t) => t.id,
    ),
  ];
}

function taskCondition(model: Model, filter: TaskFilter): Condition<Task> {
  if ('deal_id' in filter) {
    const deals = filter.deal_id.map((i) => pick(model.deals, i));
    return ['deal_id', deals.join(','), (t) => deals.includes(t.deal_id)];
  }
  if ('category' in filter) {
    const value = filter.category;
    return ['category', value, (t) => norm(t.category) === norm(value.trim())];
  }
  if ('owner_id' in filter) {
    const owners = filter.owner_id.map((i) => pick(model.users, i));
    return ['owner_id', owners.join(','), (t) => t.owner_ids.some((o) => owners.includes(o))];
  }
  if ('is_completed' in filter) {
    const done = filter.is_completed;
    return ['is_completed', String(done), (t) => t.is_completed === done];
  }
  const dues = model.tasks.flatMap((t) => (t.due_date === null ? [] : [Date.parse(t.due_date)]));
  const b = boundNear(dues, filter.due_date);
  return [`due_date__${b.op}`, b.value, (t) => t.due_date !== null && within(Date.parse(t.due_date), b)];
}

const taskListing: Listing<Task, TaskFilter> = {
  path: '/v1/tasks',
  rows: (model) => model.tasks,
  condition: taskCondition,
  order: sortTasks,
};

class ListCategories implements fc.AsyncCommand<Model, Real> {
  constructor(readonly limit: number) {}
  check = () => true;
  async run(model: Model, { key }: Real) {
    const expected = [...model.categories.values()]
      .sort((a, b) => (norm(a) < norm(b) ? -1 : 1))
      .map((name) => ({
        name,
        task_count: model.tasks.filter((t) => norm(t.category) === norm(name)).length,
      }));
    const rows = await listAll(key, '/v1/task-categories', { limit: String(this.limit) });
    expect(rows.map(({ name, task_count }) => ({ name, task_count }))).toEqual(expected);
  }
  toString = () => `ListCategories(${this.limit})`;
}

const dealIndex = fc.nat(1);

const taskFields = {
  deal: dealIndex,
  name,
  category: fc.constantFrom(...CATEGORIES),
  description: freeText,
  due: fc.option(dueDate, { nil: null }),
  owner: fc.option(userIndex, { nil: null }),
  done: fc.boolean(),
};

const taskCommands = [
  fc
    .record(taskFields, { requiredKeys: ['deal', 'name', 'category'] })
    .map((input) => new CreateTask(input as TaskInput & { deal: number; name: string; category: string })),
  fc
    .tuple(fc.nat(), fc.record(taskFields, { requiredKeys: [] }))
    .map(([target, input]) => new UpdateTask(target, input)),
  fc.nat().map((target) => new GetOne('tasks', target)),
  fc.nat().map((target) => new DeleteTask(target)),
  fc.nat().map((target) => new RestoreTask(target)),
  limit.map((pageSize) => new ListCategories(pageSize)),
  fc
    .tuple(
      fc.array(
        fc.oneof(
          fc.array(dealIndex, { minLength: 1, maxLength: 2 }).map((v) => ({ deal_id: v })),
          fc.constantFrom(...CATEGORIES).map((v) => ({ category: v })),
          fc.array(userIndex, { minLength: 1, maxLength: 2 }).map((v) => ({ owner_id: v })),
          fc.boolean().map((v) => ({ is_completed: v })),
          bound.map((v) => ({ due_date: v })),
        ),
        { maxLength: 2 },
      ),
      fc.option(fc.constantFrom(...Object.keys(TASK_SORT_KEYS).flatMap((s) => [s, `-${s}`])), {
        nil: undefined,
      }),
      limit,
    )
    .map(([filters, sort, pageSize]) => new List(taskListing, filters as TaskFilter[], sort, pageSize)),
];

// ---- The runs ---------------------------------------------------------------------------------------

/** A fresh account with three users and two deals, and an empty model of it. */
async function setup(): Promise<{ model: Model; real: Real }> {
  const { key } = await newAccount();
  const users: number[] = [];
  for (const n of [1, 2, 3])
    users.push((await create(key, '/v1/users', { name: `U${n}`, email: `u${n}@example.com` })).id);
  const deals: number[] = [];
  for (const n of [1, 2]) deals.push((await create(key, '/v1/deals', { name: `D${n}` })).id);
  return {
    model: { users, deals, companies: [], tasks: [], trashedTasks: [], categories: new Map() },
    real: { key },
  };
}

/** Up to 30 random commands per sequence, 10 sequences, each against the API and the model. */
function runModel(arbitraries: fc.Arbitrary<fc.AsyncCommand<Model, Real>>[]) {
  return fc.assert(
    fc.asyncProperty(fc.commands(arbitraries, { maxCommands: 30, size: 'max' }), (commands) =>
      fc.asyncModelRun(setup, commands),
    ),
    settings(10),
  );
}

describe('model-based: random commands against the API and an in-memory model agree on every read', () => {
  it(
    'companies: create, partial update, get, and lists under filters, sorts and pages',
    async () => {
      await runModel(companyCommands);
    },
    TIMEOUT,
  );

  it(
    'tasks: create, partial update (null clears), get, delete and restore, and lists under filters, sorts and pages',
    async () => {
      await runModel(taskCommands);
    },
    TIMEOUT,
  );
});
