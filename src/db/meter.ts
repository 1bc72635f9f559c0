/**
 * Counts D1 round trips and their wall time for one request. Round trips are the main cost at the
 * edge, so they are measured where they happen and exposed as `Server-Timing`.
 */
export class D1Meter {
  roundTrips = 0;
  ms = 0;

  async time<T>(call: () => Promise<T>): Promise<T> {
    const start = performance.now();
    try {
      return await call();
    } finally {
      this.roundTrips += 1;
      this.ms += performance.now() - start;
    }
  }

  /** `desc="<n> round trips"`, singular for one: a client parses it with `/(\d+) round trips?/`. */
  serverTiming(totalMs: number): string {
    const trips = `${this.roundTrips} round trip${this.roundTrips === 1 ? '' : 's'}`;
    return `d1;dur=${this.ms.toFixed(1)};desc="${trips}", total;dur=${totalMs.toFixed(1)}`;
  }
}

class MeteredStatement {
  constructor(
    readonly inner: D1PreparedStatement,
    private readonly meter: D1Meter,
    readonly query: string,
  ) {}

  bind(...values: unknown[]): MeteredStatement {
    return new MeteredStatement(this.inner.bind(...values), this.meter, this.query);
  }

  all<T>(): Promise<D1Result<T>> {
    return this.meter.time(() => this.inner.all<T>());
  }

  run<T>(): Promise<D1Result<T>> {
    return this.meter.time(() => this.inner.run<T>());
  }

  raw<T extends unknown[]>(): Promise<T[]> {
    return this.meter.time(() => this.inner.raw<T>());
  }
}

/** Statements that join a request's batches, inside their transaction (see http/idempotency.ts). */
export interface BatchExtension {
  /** What to run before and after a batch's own statements, given their SQL. */
  around(
    db: D1DatabaseSession,
    queries: readonly string[],
  ): Promise<{ before: D1PreparedStatement[]; after: D1PreparedStatement[] }>;
  /** True when it adds nothing to the next batch (and so reads nothing of it): the batch runs as it is. */
  idle(): boolean;
  /** Reads the results of its statements; may throw instead of the batch's own error. */
  settle(outcome: { before: D1Result[]; after: D1Result[] } | { error: unknown }): void;
}

/**
 * A D1 client whose every call through Drizzle (prepare + all/raw/run, batch) is metered. It wraps
 * the request's session, so the session keeps tracking the bookmark of every call.
 */
export function meteredD1(db: D1DatabaseSession, meter: D1Meter, extension?: BatchExtension): D1Database {
  const client = {
    prepare: (query: string) => new MeteredStatement(db.prepare(query), meter, query),
    batch: async <T>(statements: MeteredStatement[]) => {
      // Every read takes this path: no statements around it, no results to hand back, nothing to copy.
      if (!extension || extension.idle())
        return meter.time(() => db.batch<T>(statements.map((s) => s.inner)));
      const extra = (await extension?.around(
        db,
        statements.map((s) => s.query),
      )) ?? { before: [], after: [] };
      const all = [...extra.before, ...statements.map((s) => s.inner), ...extra.after];
      let results: D1Result<T>[];
      try {
        results = await meter.time(() => db.batch<T>(all));
      } catch (error) {
        extension?.settle({ error });
        throw error;
      }
      const own = results.length - extra.after.length;
      extension?.settle({ before: results.slice(0, extra.before.length), after: results.slice(own) });
      return results.slice(extra.before.length, own);
    },
  };
  // Drizzle only calls the methods above; the cast hides the D1 methods it never touches.
  return client as unknown as D1Database;
}
