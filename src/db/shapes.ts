import type { Query, SQL } from 'drizzle-orm';
import { SQLiteAsyncDialect } from 'drizzle-orm/sqlite-core';
import type { Db } from './client';
import { NOT_MINE, Renderer } from './dialect';
import { type Casing, casingOf, dialectOf, preparedItem, preparedOf } from './drizzle-internals';

/** A statement as Drizzle builds it (a select, or a compound of selects). */
type Built = { getSQL(): SQL };

/** Where a parameter of a shape's text comes from: a parameter of one of its sources, or the code. */
type Slot = { source: number; index: number } | { value: unknown };

/** A statement shape: its text, where each parameter comes from, and the fields its rows map by. */
type Shape = { sql: string; slots: Slot[]; fields: unknown; joins: unknown };

/** A per-request piece of a statement rendered alone: its text is part of the shape's key. */
function rendered(casing: Casing, source: unknown): Query | undefined {
  if (source === undefined) return undefined;
  const renderer = new Renderer(casing);
  renderer.chunk(source);
  return { sql: renderer.sql, params: renderer.params };
}

/** The renderer, noting which source (by identity in the tree) each parameter comes from. */
class Traced extends Renderer {
  readonly owners: ({ source: number; index: number } | undefined)[] = [];

  constructor(
    casing: Casing,
    private readonly sources: Map<unknown, number>,
  ) {
    super(casing);
  }

  override chunk(chunk: unknown): void {
    const source = chunk === undefined ? undefined : this.sources.get(chunk);
    if (source === undefined) {
      super.chunk(chunk);
      return;
    }
    const start = this.params.length;
    super.chunk(chunk);
    // An inner source has claimed its own parameters already.
    for (let i = start; i < this.params.length; i++) this.owners[i] ??= { source, index: i - start };
  }
}

const sameParams = (a: unknown[], b: unknown[]) =>
  a.length === b.length && a.every((value, i) => Object.is(value, b[i]));

/**
 * Statement texts built once per shape. A statement's text depends only on its shape (the route,
 * which filters are present, the sort...), never on the request's values: those are parameters.
 * So a shape's statement is built by Drizzle once, and its text kept with where each parameter
 * comes from; a later request of the same shape only renders its sources (the small per-request
 * pieces: the key's subquery, each filter, the cursor's walks...) for their parameters, and reuses
 * the text. The key is the shape's name plus the text of every source, so two requests share a
 * text exactly when each of their pieces renders to the same text.
 *
 * It holds texts, fields and the code's own constants, never a request's value: a shape in which
 * any value of the request's sources shows up outside them is not kept (it would be carried to
 * the next request), nor one that Drizzle renders otherwise than the walk here.
 */
export class Shapes {
  readonly #known = new Map<string, Shape | null>();

  /** Statements served prebuilt (for tests: a shape that never hits is never checked). */
  hits = 0;

  constructor(private readonly limit = 500) {}

  get size(): number {
    return this.#known.size;
  }

  clear(): void {
    this.#known.clear();
  }

  /**
   * The statement `build` makes from `sources` (each used in it as is, by identity), for `db`'s
   * batch: prebuilt when the shape is known, else built by Drizzle (and its shape learnt).
   * `shape` names whatever else decides the text (table, sort, direction, literals...).
   */
  statement<B extends Built>(db: Db, shape: string, sources: readonly unknown[], build: () => B): B {
    const casing = casingOf(dialectOf(db));
    let pieces: (Query | undefined)[];
    try {
      pieces = sources.map((source) => rendered(casing, source));
    } catch (err) {
      if (err === NOT_MINE) return build();
      throw err;
    }
    const key = [shape, ...pieces.map((piece) => piece?.sql ?? '\u0001')].join('\u0000');
    const known = this.#known.get(key);
    if (known) {
      this.hits++;
      return this.#prebuilt(db, known, pieces) as unknown as B;
    }
    const built = build();
    if (known === undefined) this.#learn(db, key, built, sources, pieces);
    return built;
  }

  #prebuilt(db: Db, shape: Shape, pieces: (Query | undefined)[]) {
    const params = shape.slots.map((slot) =>
      'value' in slot ? slot.value : pieces[slot.source]?.params[slot.index],
    );
    return preparedItem(db, { sql: shape.sql, params }, shape.fields, shape.joins);
  }

  #learn(db: Db, key: string, built: Built, sources: readonly unknown[], pieces: (Query | undefined)[]) {
    const dialect = dialectOf(db);
    const tree = built.getSQL();
    const traced = new Traced(casingOf(dialect), new Map(sources.map((source, i) => [source, i])));
    try {
      traced.chunk(tree);
    } catch (err) {
      if (err !== NOT_MINE) throw err;
      return this.#keep(key, null);
    }
    const theirs = SQLiteAsyncDialect.prototype.sqlToQuery.call(dialect, tree);
    if (theirs.sql !== traced.sql || !sameParams(theirs.params, traced.params)) return this.#keep(key, null);
    const values = new Set(pieces.flatMap((piece) => piece?.params ?? []));
    const slots: Slot[] = traced.params.map((value, i) => traced.owners[i] ?? { value });
    const sourced = (slot: Slot, i: number) =>
      'value' in slot
        ? !values.has(slot.value)
        : Object.is(pieces[slot.source]?.params[slot.index], traced.params[i]);
    // A value of the request outside its source (or a constant that happens to equal one): not
    // kept, the next request of this shape tries again.
    if (!slots.every(sourced)) return;
    const prepared = preparedOf(built);
    this.#keep(key, { sql: traced.sql, slots, fields: prepared.fields, joins: prepared.joinsNotNullableMap });
  }

  #keep(key: string, shape: Shape | null) {
    if (this.#known.size >= this.limit) {
      const oldest = this.#known.keys().next();
      if (!oldest.done) this.#known.delete(oldest.value);
    }
    this.#known.set(key, shape);
  }
}

/** Shared by every request: texts and where their parameters come from, never a request's values. */
export const shapes = new Shapes();
