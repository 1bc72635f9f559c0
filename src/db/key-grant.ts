import { and, eq, isNull, or, type SQL, type SQLWrapper, StringChunk, sql } from 'drizzle-orm';
import { insufficientScope, keyExpired } from '../core/errors';
import { allows, grantingScopes, type Scope } from '../core/scopes';
import type { Db } from './client';
import { filled, prerendered } from './prerendered';
import { apiKeys } from './schema';
import { updateRow } from './write-shapes';

const MINUTE_MS = 60_000;
// What a scope written into SQL as a literal may hold: never a quote.
const SCOPE_LITERAL = /^[a-z_*]+:[a-z*]+$/;

/**
 * Unexpired (`now`: a literal, see `KeyGrant.now`) and holding `scope`. Written as literals, not
 * parameters: a list repeats its account subquery many times, and D1 binds at most 100 parameters
 * per statement. Both come from this code (a whole number, scopes from `ALL_SCOPES`, letters, `_`,
 * `*` and `:`), never from the request.
 */
function usable(scope: Scope | null, now: SQL): SQL | undefined {
  const literal = (each: Scope) => {
    if (!SCOPE_LITERAL.test(each)) throw new Error(`not a scope: ${each}`);
    return sql.raw(`'${each}'`);
  };
  const held =
    scope === null
      ? undefined
      : or(
          isNull(apiKeys.scopes),
          sql`exists (select 1 from json_each(${apiKeys.scopes}) where value in (${sql.join(
            grantingScopes(scope).map(literal),
            sql`, `,
          )}))`,
        );
  return and(or(isNull(apiKeys.expiresAt), sql`${apiKeys.expiresAt} > ${now}`), held);
}

/** `column` of the key while it is live, unexpired and holds `scope`: `key` and `now` are its holes. */
const liveKey =
  (column: typeof apiKeys.keyHash | typeof apiKeys.accountId, scope: Scope | null) =>
  (key: SQL | string, now: SQL) =>
    sql`(select ${column} from ${apiKeys} where ${apiKeys.keyHash} = ${key} and ${isNull(apiKeys.revokedAt)} and ${usable(scope, now)})`;

/** The key's subquery while it is live, unexpired and holds `scope`: `key` and `now` are its holes. */
export const grantQuery = (scope: Scope | null) => liveKey(apiKeys.keyHash, scope);

/**
 * The key's account while the key is live, unexpired and holds `scope`, in one lookup of the key:
 * what every statement of a request scopes its rows by (`accountOf`).
 */
export const grantAccountQuery = (scope: Scope | null) => liveKey(apiKeys.accountId, scope);

/**
 * `template`'s text per scope, rendered once: a request's grant is rendered for every statement of
 * its batch. Holds text made from code constants (the routes' scopes), never a request's value.
 */
function perScope(template: (scope: Scope | null) => (key: SQL | string, now: SQL) => SQL) {
  const texts = new Map<Scope | null, StringChunk[]>();
  return (scope: Scope | null): StringChunk[] => {
    let pieces = texts.get(scope);
    if (!pieces) {
      pieces = prerendered(template(scope), 2);
      texts.set(scope, pieces);
    }
    return pieces;
  };
}

const grantPieces = perScope(grantQuery);
const accountPieces = perScope(grantAccountQuery);

/** What the key lookup reads of the request's key, to tell 401, expired and 403 apart. */
export type KeyState = {
  expiresAt: number | null;
  scopes: string[] | null;
  lastUsedAt: number | null;
  /**
   * Whether the key's account has an endpoint taking deliveries (db/listening.ts): asked by a
   * write's lookup only, absent from a read's.
   */
  listening?: boolean;
};

/**
 * A request's key as its queries see it: the key (its hash, or the panel session's subquery for
 * it) while it is live, unexpired and holds `scope`, else nothing. Every query scoped by it
 * (`accountOf`, `ownRow`) reads and writes nothing without the scope, even in a batch that runs
 * before the key's state is read; `scoped` then answers 401 or 403 from that state.
 */
export class KeyGrant implements SQLWrapper {
  #touched = false;
  /** The key's scopes once its lookup has been read (null: full access), for pages that offer actions. */
  held?: string[] | null;
  /**
   * Once a write's key lookup has been read: whether its account has an endpoint taking deliveries
   * (undefined for a read, whose lookup does not ask).
   */
  listening?: boolean;

  constructor(
    /** The key: its SHA-256, or a scalar subquery yielding it. */
    readonly key: string | SQL<string>,
    /** What the operation needs; null: any valid key may (GET /v1/me). */
    public scope: Scope | null,
    now: number,
    /** Where a read's last-used update goes, off the response's path; none: not recorded. */
    readonly deferred?: (touch: Promise<unknown>) => void,
    /** A write's batches run on the primary: its last-used update joins the first one. */
    readonly writes = false,
  ) {
    this.now = Math.ceil(now / 1000) * 1000;
  }

  /**
   * The request's time, rounded up to the second. It is written into the statement as a literal
   * (see `usable`), so a finer time would make every statement's text new on every request and
   * defeat the dialect's record of checked texts (src/db/dialect.ts). Rounded up, so a key is
   * never taken after its expiry (at most a second before it); `check` uses the same value, so the
   * SQL and the 401 never disagree about a key that expires in between.
   */
  readonly now: number;

  #sql?: SQL;
  #account?: SQL<number>;

  /** `pieces`' text for the grant's scope, with its key and time in the holes. */
  #filled<T>(pieces: (scope: Scope | null) => StringChunk[]): SQL<T> {
    return filled<T>(pieces(this.scope), this.key, new StringChunk(String(this.now)));
  }

  /**
   * The key's subquery, from its text prerendered for the scope (see `perScope`); made once per
   * grant: a write renders it in several statements of its request.
   */
  getSQL(): SQL {
    this.#sql ??= this.#filled(grantPieces);
    return this.#sql;
  }

  /**
   * The key's account id while the grant holds (`grantAccountQuery`), as `accountOf` scopes rows
   * by it; made once per grant, like `getSQL`.
   */
  account(): SQL<number> {
    this.#account ??= this.#filled<number>(accountPieces);
    return this.#account;
  }

  /**
   * Another scope for an operation known only from its body (a batch's items): before any statement
   * has used the grant, so every one of them checks the same scope.
   */
  rescope(scope: Scope): void {
    if (this.#sql || this.#account) throw new Error('a grant is rescoped before its first statement');
    this.scope = scope;
  }

  /** 401 for an expired key, 403 for a missing scope: the same rules as `usable`, on what was read. */
  check(state: KeyState): void {
    this.held = state.scopes;
    this.listening = state.listening;
    if (state.expiresAt !== null && state.expiresAt <= this.now) {
      throw keyExpired(new Date(state.expiresAt).toISOString());
    }
    if (!allows(state.scopes, this.scope)) throw insufficientScope(this.scope ?? '');
  }

  /**
   * 403 naming the first of `scopes` the key does not hold, once the key was read (`check`): for an
   * operation whose scopes are known only from its input (a batch's items, an import's resource).
   */
  requireAll(scopes: readonly Scope[]): void {
    const missing = scopes.find((scope) => !allows(this.held ?? null, scope));
    if (missing) throw insufficientScope(missing);
  }

  get #minute(): number {
    return Math.floor(this.now / MINUTE_MS) * MINUTE_MS;
  }

  /** The key, unless its last use is this minute already. */
  #stale(): SQL | undefined {
    return and(
      eq(apiKeys.keyHash, this),
      or(isNull(apiKeys.lastUsedAt), sql`${apiKeys.lastUsedAt} < ${this.#minute}`),
    );
  }

  /** Sets last-used to this minute, unless it already is: at most one write per key per minute. */
  #touch(db: Db) {
    return db.update(apiKeys).set({ lastUsedAt: this.#minute }).where(this.#stale());
  }

  /** For a write's first batch: its last-used update, once per request (prebuilt per shape). */
  batched(db: Db) {
    if (!this.writes || this.#touched) return [];
    this.#touched = true;
    return [updateRow(db, apiKeys, { lastUsedAt: this.#minute }, this.#stale())];
  }

  /**
   * After a read: hands the last-used update to `deferred` when the key's last use is before this
   * minute. A write in a read's batch would send it to the primary instead of a nearby replica, so
   * a read costs no write and no round trip of its own; the update runs after the response, at
   * most once per key and minute.
   */
  afterRead(db: Db, state: KeyState): void {
    if (this.writes || this.#touched || !this.deferred) return;
    if (state.lastUsedAt !== null && state.lastUsedAt >= this.#minute) return;
    this.#touched = true;
    this.deferred(this.#touch(db).then(() => undefined));
  }
}
