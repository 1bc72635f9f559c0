/**
 * Which D1 database is shard n (docs/scaling.md). `DB` is shard 0; further shards are the bindings
 * `DB_1`, `DB_2`, … declared in wrangler.toml, counted from 1 while they follow one another (a gap
 * ends the count: a shard past it is unreachable, never another shard's). Nothing else reads a D1
 * binding: every request, queue message and cron job reaches its database through here, and a
 * shard number from outside (a credential, a message) is only used once `isShard` says it exists.
 * Each shard's id ranges: src/core/id-ranges.ts.
 */
import { MAX_SHARDS } from '../core/id-ranges';
import { assertShardCurrent } from './shard-ready';

export { homeShardOfId, idSpan, MAX_SHARDS, seatIdRangeSql } from '../core/id-ranges';

/** The D1 bindings of the Worker, as this module reads them (src/env.ts's Bindings has them). */
export type ShardBindings = { readonly DB: D1Database } & {
  readonly [binding: `DB_${number}`]: D1Database | undefined;
};

const counts = new WeakMap<object, number>();

/** How many shards the Worker has: 1 plus the `DB_n` bindings from `DB_1` on without a gap. */
export function shardCount(env: ShardBindings): number {
  let count = counts.get(env);
  if (count === undefined) {
    count = 1;
    while (count < MAX_SHARDS && env[`DB_${count}`]) count += 1;
    counts.set(env, count);
  }
  return count;
}

/** True for a whole number naming one of the Worker's shards: the only shard numbers used. */
export const isShard = (env: ShardBindings, n: unknown): n is number =>
  typeof n === 'number' && Number.isSafeInteger(n) && n >= 0 && n < shardCount(env);

/** Shard n's database; a number that is not one of the Worker's shards is an error of the caller. */
export function shardOf(env: ShardBindings, n: number): D1Database {
  if (!isShard(env, n)) throw new Error(`no shard ${n}`);
  const d1 = n === 0 ? env.DB : env[`DB_${n}`];
  if (!d1) throw new Error(`no shard ${n}`);
  return d1;
}

/** Every shard, in order: for the cron and the admin API, which go through them one by one. */
export const allShards = (env: ShardBindings): number[] =>
  Array.from({ length: shardCount(env) }, (_, n) => n);

const forwards = new WeakMap<Request, number>();

/** Marks an in-process request as forwarded to shard n: its credential's account has moved there. */
export const forwardRequest = (request: Request, n: number): void => void forwards.set(request, n);

/** The shard a request was forwarded to, if it was. */
export const forwardedShard = (request: Request): number | undefined => forwards.get(request);

/**
 * A request's shard: chosen where its credential is parsed (the API key, the webhook's token, the
 * panel's session), before its first statement, so reaching the right database costs no round
 * trip. A request that names none (the sign-in page, /admin's shard 0 work) runs on shard 0.
 */
export class RequestShard {
  #n = 0;
  #started = false;

  /**
   * `forwarded`: the shard a moved account's credential was forwarded to (src/moves/forwards.ts),
   * which the request serves whatever shard its credential names.
   */
  constructor(
    private readonly env: ShardBindings,
    private readonly forwarded?: number,
  ) {}

  /**
   * Picks shard n; false when n is none of the Worker's shards (a credential naming it is then an
   * unknown one: 401 or 404, never a 500).
   */
  choose(n: number): boolean {
    if (!isShard(this.env, n)) return false;
    if (this.#started && n !== this.#n)
      throw new Error('a request chose its shard after its first statement');
    this.#n = n;
    return true;
  }

  /**
   * `choose`, then the shard's migrations checked (src/db/shard-ready.ts): false for no such shard,
   * a 503 `shard_unavailable` for one whose schema lags the Worker's.
   */
  async serve(named: number): Promise<boolean> {
    const n = this.forwarded ?? named;
    if (!this.choose(n)) return false;
    await assertShardCurrent(shardOf(this.env, n), n);
    return true;
  }

  get n(): number {
    return this.#n;
  }

  /** The chosen shard's database, on the request's first statement; the choice is final from then. */
  database(): D1Database {
    this.#started = true;
    return shardOf(this.env, this.#n);
  }
}
