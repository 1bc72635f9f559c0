import { Column, noopDecoder, SQL, Subquery } from 'drizzle-orm';
import { SQLiteD1Session } from 'drizzle-orm/d1';

type Decoder = { mapFromDriverValue(value: unknown): unknown };
type Field = { path: string[]; field: unknown };
type Row = Record<string, unknown>;

/** `decoder` is internal to Drizzle's SQL (what `.mapWith()` sets). */
const decoder = (sql: unknown) => (sql as { decoder: Decoder }).decoder;

/** The decoder of a selected field, found as Drizzle's mapResultRow finds it. */
function decoderOf(field: unknown): Decoder {
  if (field instanceof Column) return field;
  if (field instanceof SQL) return decoder(field);
  if (field instanceof Subquery) return decoder(field._.sql);
  return decoder((field as SQL.Aliased).sql);
}

/** Decoders that return the driver's value as is: a call per cell saved where the value is kept. */
const keeps = (decoder: Decoder) =>
  decoder === noopDecoder || decoder.mapFromDriverValue === Column.prototype.mapFromDriverValue;

/**
 * The rows of a batch's result (D1 objects, one key per column in select order) as Drizzle maps
 * them, for a flat selection: each field's decoder found once per statement, where Drizzle's
 * mapResultRow finds it again for every cell, and called only where it changes the value (a JSON
 * column, a list of ids). Nested selections (joins select those) stay with Drizzle: its null
 * handling for joined tables only concerns fields two levels deep.
 */
function flatMapper(fields: Field[]): Mapper | undefined {
  if (fields.some(({ path }) => path.length !== 1)) return undefined;
  const keys = fields.map(({ path }) => path[0] as string);
  const decoders = fields.map(({ field }) => {
    const found = decoderOf(field);
    return keeps(found) ? undefined : found;
  });
  // Each row starts as a copy of one with every key in place, in order: V8 copies its layout at
  // once, where adding the keys one by one walked its layout's transitions for every row.
  const template: Row = Object.fromEntries(keys.map((key) => [key, null]));
  return (rows) =>
    rows.map((row) => {
      const values = Object.values(row);
      const mapped: Row = { ...template };
      for (let i = 0; i < keys.length; i++) {
        const value = values[i];
        const decoder = decoders[i];
        mapped[keys[i] as string] =
          value === null || decoder === undefined ? value : decoder.mapFromDriverValue(value);
      }
      return mapped;
    });
}

type Mapper = (rows: Row[]) => Row[];

/**
 * The mapper of each fields array seen: a prebuilt statement (db/shapes.ts) prepares with the same
 * array on every request. Holds decoders and keys (code), never a row; weak, so it lasts as long as
 * the statement's shape.
 */
const mappers = new WeakMap<Field[], Mapper | null>();

function mapperOf(fields: Field[]): Mapper | undefined {
  let map = mappers.get(fields);
  if (map === undefined) {
    map = flatMapper(fields) ?? null;
    mappers.set(fields, map);
  }
  return map ?? undefined;
}

type Prepared = ReturnType<SQLiteD1Session<Record<string, never>, never>['prepareQuery']>;
type Mapped = { mapAllResult(rows: unknown, isFromBatch?: boolean): unknown };

/** Drizzle's D1 session, with the row mapping above for the statements of a batch. */
export class D1Session extends SQLiteD1Session<Record<string, never>, never> {
  override prepareQuery(...args: Parameters<SQLiteD1Session<Record<string, never>, never>['prepareQuery']>) {
    const prepared: Prepared & Mapped = super.prepareQuery(...args);
    const [, fields, , , customResultMapper] = args;
    const map = fields && !customResultMapper ? mapperOf(fields as Field[]) : undefined;
    if (map) {
      const drizzles = prepared.mapAllResult.bind(prepared);
      prepared.mapAllResult = (result, isFromBatch) =>
        isFromBatch ? map((result as D1Result<Row>).results) : drizzles(result, isFromBatch);
    }
    return prepared;
  }
}
