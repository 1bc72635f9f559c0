import type { Context } from 'hono';
import type { AppEnv } from '../env';
import { badRequest } from './problem';

/** Carries a D1 bookmark both ways: on every response that used D1, and back on a later request. */
export const BOOKMARK_HEADER = 'X-D1-Bookmark';

/**
 * The shape D1 issues bookmarks in: four dash-separated lower-case hex groups. Anything else is
 * refused before it reaches D1, which would fail the whole request on a bookmark it cannot parse.
 */
export const BOOKMARK = /^[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{32,64}$/;

/**
 * The D1 session a request runs in. A read may be served by a nearby replica, but never one older
 * than the bookmark the client sent back; any other method starts on the primary, where writes go.
 */
export function sessionFor(db: D1Database, method: string, bookmark: string | undefined): D1DatabaseSession {
  if (method !== 'GET' && method !== 'HEAD') return db.withSession('first-primary');
  return db.withSession(bookmark && BOOKMARK.test(bookmark) ? bookmark : 'first-unconstrained');
}

/**
 * The request's session, started on its first statement: a request that never reaches D1 (health,
 * a refused key, a 405) starts none. It is started as `sessionFor` says, from the request's method
 * and bookmark, so a request that does reach D1 runs exactly as before; `db` names the request's
 * shard (src/db/shards.ts `RequestShard`), read then, so its credential can choose it until then.
 */
export function lazySession(
  db: () => D1Database,
  method: string,
  bookmark: string | undefined,
): D1DatabaseSession {
  let session: D1DatabaseSession | undefined;
  const started = () => {
    session ??= sessionFor(db(), method, bookmark);
    return session;
  };
  return {
    prepare: (query) => started().prepare(query),
    batch: <T>(statements: D1PreparedStatement[]) => started().batch<T>(statements),
    // The state the session saw or made; none for a request that never started one.
    getBookmark: () => session?.getBookmark() ?? null,
  };
}

/**
 * A malformed bookmark is a 400 rather than silently ignored: the client asked to read its own
 * writes, and a read that quietly dropped that guarantee could show it stale data. An empty header
 * is no bookmark, so a client can always send the last one it got, even before it has one.
 */
export function checkBookmark(c: Context<AppEnv>): void {
  const bookmark = c.req.header(BOOKMARK_HEADER);
  if (bookmark && !BOOKMARK.test(bookmark)) {
    throw badRequest('invalid_bookmark', `${BOOKMARK_HEADER} is not a bookmark this API issued.`);
  }
}
