import type { z } from '@hono/zod-openapi';
import type { BatchInput } from '../contracts/batch';
import { conflict, type FieldError, invalid, notFound } from '../core/errors';
import type { Refs, RefTarget } from '../core/refs';
import { said } from '../core/said';
import type { Scope } from '../core/scopes';
import { rowsByKeys } from '../db/bulk';
import type { Db } from '../db/client';
import { guardedWrite } from '../db/errors';
import type { Actor } from '../db/journaling';
import { KeyGrant } from '../db/key-grant';
import {
  type Batch,
  changedMeanwhile,
  checkUpdate,
  createStatements,
  type Extras,
  updateStatements,
  type Viewed,
  type WriteSpec,
} from '../db/own';
import type { TrashTable } from '../db/schema';
import { accountOf, type KeyRef, scoped } from '../db/tenant';
import { type Checked, checkItem, finalBody, type Kind } from './batch-items';
import { type NaturalKey, naturalKeys, targetTables } from './natural-keys';

/** A resource as a batch writes it: its kind, its write spec and its two body contracts. */
export type BatchResource<T extends TrashTable, C, U, X extends Extras> = {
  kind: Kind;
  spec: WriteSpec<T, C, U, X>;
  create: z.ZodType<C>;
  update: z.ZodType<U>;
};

type Row = Record<string, unknown> & {
  id: number;
  version: number;
  updatedAt: number;
  deletedAt: number | null;
};

/** What became of one item: its row and whether it was created, or why it failed. */
export type Outcome<R> = { index: number; created: boolean; row: R } | { index: number; error: unknown };

/** The rows round trip 1 read: the resource's own (trashed too), and each target's live ones. */
type Found = { own: Row[]; targets: Map<RefTarget, Row[]> };

/** What to read: ids and natural key values, per table. */
type Wanted = { ids: Set<number>; keys: Map<NaturalKey, Set<string>> };

const wanted = (): Wanted => ({ ids: new Set(), keys: new Map() });

function want(w: Wanted, key: NaturalKey, value: string | undefined): void {
  if (value === undefined) return;
  const values = w.keys.get(key) ?? new Set<string>();
  values.add(value);
  w.keys.set(key, values);
}

/** Each id a body names (`Refs`), by target. */
function refIds(refs: Refs): [RefTarget, number][] {
  return Object.values(refs).flatMap(([target, id]) =>
    typeof id === 'number' ? [[target, id]] : Array.isArray(id) ? id.map((each) => [target, each]) : [],
  ) as [RefTarget, number][];
}

/** Every id and key value the checked items name: of the resource's own rows and of each target. */
function wantedOf<C, U>(kind: Kind, spec: WriteSpec<TrashTable, C, U, Extras>, items: Checked[]) {
  const own = wanted();
  const targets = new Map<RefTarget, Wanted>();
  const target = (t: RefTarget) => targets.get(t) ?? targets.set(t, wanted()).get(t) ?? wanted();
  for (const { item, parsed, keyRefs } of items) {
    if (item.id !== undefined) own.ids.add(item.id);
    // Unique keys of every item, to find a record that already holds them (a 409, as one call).
    for (const key of naturalKeys[kind] as NaturalKey[]) {
      if (key.unique || item.op === 'upsert') want(own, key, key.normal(parsed[key.field]));
    }
    for (const [t, id] of refIds(spec.refs?.(parsed as C & U) ?? {})) target(t).ids.add(id);
    for (const ref of keyRefs) want(target(ref.relation.target), ref.key, ref.value);
  }
  return { own, targets };
}

/** Round trip 1: the key, the resource's rows and each target's, one statement per table. */
async function readAll(db: Db, keyHash: KeyRef, table: TrashTable, w: ReturnType<typeof wantedOf>) {
  const account = accountOf(keyHash);
  const read = (t: TrashTable, x: Wanted, liveOnly: boolean) =>
    rowsByKeys(
      db,
      account,
      t,
      [...x.ids],
      [...x.keys].map(([key, values]) => [key.column, [...values]] as const),
      liveOnly,
    );
  const targets = [...w.targets];
  const [accountId, own, ...rest] = await scoped(
    db,
    keyHash,
    read(table, w.own, false),
    ...targets.map(([t, x]) => read(targetTables[t], x, true)),
  );
  const found: Found = {
    own: own as Row[],
    targets: new Map(targets.map(([t], i) => [t, rest[i] as Row[]])),
  };
  return { accountId, found };
}

/** The oldest row whose `key` holds `value`. */
const holder = (rows: Row[], key: NaturalKey, value: string) => rows.find((row) => row[key.prop] === value);

/** The record an item writes: its id's, or for an upsert the first natural key's that finds one. */
function currentOf(kind: Kind, checked: Checked, own: Row[]): Row | undefined {
  const { item, parsed } = checked;
  if (item.id !== undefined) {
    const row = own.find((r) => r.id === item.id && r.deletedAt === null);
    if (!row) throw notFound();
    return row;
  }
  if (item.op !== 'upsert') return undefined;
  for (const key of naturalKeys[kind] as NaturalKey[]) {
    const value = key.normal(parsed[key.field]);
    const row = value === undefined ? undefined : holder(own, key, value);
    if (!row) continue;
    if (row.deletedAt !== null) {
      throw conflict(`A record in the trash has this ${key.field}: restore it first.`, key.field, {
        field: key.field,
        holder: 'trash',
      });
    }
    return row;
  }
  return undefined;
}

/** The ids of the item's relations by natural key; a key no live record of the account holds is a 422. */
function relationIds(checked: Checked, targets: Found['targets']): Record<string, number> {
  const ids: Record<string, number> = {};
  const errors: FieldError[] = [];
  for (const { relation, key, value } of checked.keyRefs) {
    const row = holder(targets.get(relation.target) ?? [], key, value);
    if (row) ids[relation.idField] = row.id;
    else {
      errors.push({
        path: `${relation.field}.${key.field}`,
        code: 'not_found',
        message: `No ${relation.target} of this account has this ${key.field}.`,
        params: { record: relation.target, key: key.field },
      });
    }
  }
  if (errors.length) throw invalid(errors);
  return ids;
}

/** 422 naming every id of `refs` that is not a live row of the account (as `assertRefs`). */
function assertIds(refs: Refs, targets: Found['targets']): void {
  const live = (t: RefTarget, id: number) => (targets.get(t) ?? []).some((row) => row.id === id);
  const errors = Object.entries(refs).flatMap(([path, [target, id]]): FieldError[] => {
    const missing = (at: string, each: number): FieldError => ({
      path: at,
      ...said('not_found', { record: target, id: each }),
    });
    if (typeof id === 'number') return live(target, id) ? [] : [missing(path, id)];
    if (!Array.isArray(id)) return [];
    return id.flatMap((each, i) => (live(target, each) ? [] : [missing(`${path}.${i}`, each)]));
  });
  if (errors.length) throw invalid(errors);
}

/** A planned write: the item's body, the row it updates (none: a create). */
type Plan = { index: number; body: Record<string, unknown>; current?: Row };

/** Claims of unique values and rows by the batch's earlier items. */
type Claims = Map<string, number>;

function claim(
  claims: Claims,
  what: string,
  index: number,
  message: (other: number) => string,
  path?: string,
) {
  const other = claims.get(what);
  if (other !== undefined)
    throw conflict(message(other), path, path ? { field: path, holder: 'batch', item: other } : undefined);
  claims.set(what, index);
}

/** One item against what was read: its record, its relations, its rules, its unique keys. */
function planItem<T extends TrashTable, C, U, X extends Extras>(
  resource: BatchResource<T, C, U, X>,
  checked: Checked,
  found: Found,
  accountId: number,
  claims: Claims,
  withParams: boolean,
): Plan {
  const { kind, spec } = resource;
  const current = currentOf(kind, checked, found.own);
  const ids = relationIds(checked, found.targets);
  const body = finalBody(current ? resource.update : resource.create, checked, ids, withParams);
  assertIds(spec.refs?.(body as C & U) ?? {}, found.targets);
  if (current) checkUpdate(spec, current as T['$inferSelect'], body as U, accountId);
  for (const key of naturalKeys[kind] as NaturalKey[]) {
    const value = key.unique ? key.normal(body[key.field]) : undefined;
    if (value === undefined) continue;
    const other = holder(found.own, key, value);
    if (other && other.id !== current?.id) {
      throw conflict(`Another record of this account has this ${key.field}.`, key.field, {
        field: key.field,
        holder: other.deletedAt === null ? 'other' : 'trash',
      });
    }
    claim(
      claims,
      `${key.field}:${value}`,
      checked.index,
      (i) => `Item ${i} of this batch has this ${key.field} too.`,
      key.field,
    );
  }
  if (current)
    claim(
      claims,
      `id:${current.id}`,
      checked.index,
      (i) => `Item ${i} of this batch writes this record too.`,
    );
  return { index: checked.index, body, current };
}

/**
 * A batch in two round trips: every key, record and reference read in one batch with the API key,
 * every item checked against it, then the writes of every item that passed in one atomic D1 batch,
 * each item's statements made by the resource's write spec (as one call's), its record read back.
 */
export async function runBatch<T extends TrashTable, C, U, X extends Extras>(
  db: Db,
  keyHash: KeyRef,
  resource: BatchResource<T, C, U, X>,
  input: BatchInput,
  scopes: Scope[],
  tail?: Tail,
  /** Zod's codes with their params (the panel's import page words them): off for `/v1`'s answers. */
  withParams = false,
): Promise<Outcome<Viewed<T, X>>[]> {
  const { kind, spec } = resource;
  const outcomes: Outcome<Viewed<T, X>>[] = [];
  const checked: Checked[] = [];
  input.items.forEach((item, index) => {
    try {
      checked.push(checkItem(kind, resource, item, index, withParams));
    } catch (error) {
      outcomes.push({ index, error });
    }
  });
  if (input.atomic && outcomes.length) return outcomes;
  const w = wantedOf(kind, spec as unknown as WriteSpec<TrashTable, C, U, Extras>, checked);
  const { accountId, found } = await readAll(db, keyHash, spec.table, w);
  // 403 unless the key holds every scope the batch's operations need (read with the key).
  if (keyHash instanceof KeyGrant) keyHash.requireAll(scopes);
  const claims: Claims = new Map();
  const plans: Plan[] = [];
  for (const each of checked) {
    try {
      plans.push(planItem(resource, each, found, accountId, claims, withParams));
    } catch (error) {
      outcomes.push({ index: each.index, error });
    }
  }
  if ((input.atomic && outcomes.length) || !(plans.length || tail)) return sorted(outcomes);
  const planned: Planned[] = plans.map(({ index, current }) =>
    current
      ? {
          index,
          created: false,
          read: { id: current.id, version: current.version, updatedAt: current.updatedAt },
        }
      : { index, created: true },
  );
  const extra = tail?.(planned, sorted([...outcomes])) ?? { first: [] };
  const written = await writeAll(db, spec, plans, accountId, extra, { key: keyHash });
  return sorted([...outcomes, ...written]);
}

/** An item that passed its checks: a create, or an update of the record as round trip 1 read it. */
export type Planned = {
  index: number;
  created: boolean;
  read?: { id: number; version: number; updatedAt: number };
};

/**
 * Statements that join the write batch (an import's progress: written with its rows or not at
 * all), made from what is planned and what failed before the write: `first` before the items'
 * statements, `last` after them (seeing what they wrote).
 */
export type Tail = (
  planned: Planned[],
  failed: Outcome<unknown>[],
) => { first: Batch[number][]; last?: Batch[number][] };

const sorted = <R>(outcomes: Outcome<R>[]) => outcomes.sort((a, b) => a.index - b.index);

/** Round trip 2: every planned item's statements in one atomic batch; each read back last. */
async function writeAll<T extends TrashTable, C, U, X extends Extras>(
  db: Db,
  spec: WriteSpec<T, C, U, X>,
  plans: Plan[],
  accountId: number,
  extra: ReturnType<Tail>,
  actor: Actor,
): Promise<Outcome<Viewed<T, X>>[]> {
  const statements: Batch[number][] = [...extra.first];
  const ends = plans.map(({ body, current }) => {
    statements.push(
      ...(current
        ? updateStatements(db, spec, current as T['$inferSelect'], body as U, accountId, actor)
        : createStatements(db, spec, body as C, accountId, actor)),
    );
    return statements.length - 1;
  });
  statements.push(...(extra.last ?? []));
  const results = (await guardedWrite(db.batch(statements as Batch), spec.table).catch(
    changedMeanwhile(spec),
  )) as unknown[][];
  return plans.map(({ index, current }, i) => {
    const row = results[ends[i] as number]?.[0] as Viewed<T, X> | undefined;
    // Trashed between the read and the write: nothing was written to it.
    return row ? { index, created: !current, row } : { index, error: notFound() };
  });
}
