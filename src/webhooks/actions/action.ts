import type { z } from '@hono/zod-openapi';
import type { SQL } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import type { SQLiteUpdateSetSource } from 'drizzle-orm/sqlite-core';
import type { FieldError } from '../../core/errors';
import type { Said } from '../../core/said';
import type { Db } from '../../db/client';
import type { Actor } from '../../db/journaling';
import type { inboundEventResults } from '../../db/schema';
import type { Action, CheckContext, FieldMapping, Owner } from '../rules/config';
import type { Match, PlanContext, Planned, Reason } from '../rules/flows';

export type ActionName = Action['action'];
export type ActionOf<N extends ActionName> = Extract<Action, { action: N }>;

/** A planned step whose body passed its record's `/v1` schema. */
export type ValidOf<N extends ActionName, B> = {
  action: N;
  index: number;
  owner?: Owner | undefined;
  body: B;
  match?: Match;
};

/**
 * How a step that creates or updates one record writes it: the id of the record the lookup found,
 * or the name a new one is created with. A record to create without a name is not a type.
 */
export type Target = { id: number } | { name: string };

/** What the flows found already in the account, read before writing. */
export type Found = {
  contactId?: number | undefined;
  companyId?: number | undefined;
  turns: ReadonlyMap<number, number>;
  /** The found contact's custom fields, which the event's are merged into. */
  customFields?: Record<string, unknown> | undefined;
};

/**
 * What one step needs read before the event is written: a query that travels in the event's one
 * lookup batch (with the owners and the round-robin turns), and what its rows tell the flows.
 */
export type Lookup = { query: BatchItem<'sqlite'>; found(rows: unknown): Partial<Found> };

/** A lookup whose `found` reads the rows its query returns. */
export const lookup = <Q extends BatchItem<'sqlite'>>(
  query: Q,
  found: (rows: Q['_']['result']) => Partial<Found>,
): Lookup => ({ query, found: (rows) => found(rows as Q['_']['result']) });

/** What settling a step against the lookup sees, and where its warnings go. */
export type SettleContext = {
  found: Found;
  fields: readonly FieldMapping[];
  warn: (warning: FieldError) => void;
};

/** A step as written, skipped (with the reason), or the event failed (no retry can help). */
export type Settled<W> = { step: W } | { skip: Reason } | { fail: Said };

/** What an action's statements write through: the batch, the event's results row and owners. */
export type Writer = {
  db: Db;
  accountId: number;
  now: number;
  /** The webhook and the event, as the change journal's entries name them. */
  actor: Actor;
  push: (...statements: BatchItem<'sqlite'>[]) => void;
  /** A record this event wrote before, as a subquery on its results row (`taskIds`: a JSON array). */
  result: <C extends 'contactId' | 'companyId' | 'dealId' | 'taskIds'>(
    column: C,
  ) => SQL<C extends 'taskIds' ? string : number>;
  /** Sets columns of the event's results row. */
  setResult: (values: SQLiteUpdateSetSource<typeof inboundEventResults>) => BatchItem<'sqlite'>;
  /** The owner of a record the step creates (a round robin takes its turn in the batch). */
  owner: (step: { index: number; owner?: Owner | undefined }) => number | SQL<number> | undefined;
};

/** A test event's preview: each action sets its record's entry; `tasks` is a list. */
export type Preview = Record<string, unknown> & { tasks: unknown[] };

/**
 * The form controls of a flow block the panel knows, in the order it shows them: an action names
 * those it takes, `required` (always sent) or `optional` (sent when filled in).
 */
export const panelOptions = ['match_on', 'name', 'category', 'description', 'due'] as const;
export type PanelOptions = Partial<Record<(typeof panelOptions)[number], 'required' | 'optional'>>;

/** What every step has, whatever its action. */
export type StepBase = { action: ActionName; index: number; owner?: Owner | undefined; body: object };

/**
 * Everything one kind of flow action is: its options' schema, its config checks, its plan, the
 * salvage of its body, its statements and preview, and how the panel shows it. `V` is its step
 * once its body passed its record's schema, `P` after the first settling pass, `W` as written.
 * Methods, so the registry can hold modules of different steps.
 */
export type ActionModule<
  N extends ActionName,
  S extends z.ZodType,
  V extends StepBase,
  W extends StepBase,
  P extends StepBase = V,
> = {
  name: N;
  /** The stored options: a strictObject with `action`, its own options and the common `when` and `owner`. */
  schema: S;
  /** Whether a flow may hold it once only. */
  once: boolean;
  check(action: ActionOf<N>, ctx: CheckContext): void;
  /** The action that must have run before it, and the reason it is skipped otherwise. */
  needs?: { action: ActionName; reason: Reason };
  plan(action: ActionOf<N>, ctx: PlanContext): Planned;
  /** The record it writes, as messages name it, and that record's `/v1` write schema. */
  record: string;
  body: z.ZodType<V['body']>;
  /** What the step cannot do without: a body path whose value is refused skips it. */
  essential: readonly string[];
  /** What the step needs to know of the account before it is settled (the record it matches). */
  lookup?(step: V, db: Db, accountId: number): Lookup | undefined;
  /**
   * A first pass over the steps against what the lookup found, before any step's `settle`
   * (whatever their order): what may fail the whole event.
   */
  early?(step: V, ctx: SettleContext): { step: P } | { fail: Said };
  /** The step checked against what the lookup found; without it, a valid step is written as it is. */
  settle?(step: P, ctx: SettleContext): Settled<W>;
  statements(w: Writer, step: W): void;
  /** Statements after every step's, that tie this record to the others the event wrote. */
  link?(w: Writer, written: ReadonlySet<ActionName>): void;
  /**
   * The change journal's statements for the records it wrote, after every step's and link's, so
   * each record changed by the event gets one entry (src/journal/).
   */
  journal(w: Writer): BatchItem<'sqlite'>[];
  /** Sets its entry of a test event's preview; `owner` is the owner a create would get. */
  preview(step: W, owner: { owner_id?: number | undefined }, out: Preview): void;
  panel: PanelOptions;
  labels: { 'pt-BR': string; en: string };
};
