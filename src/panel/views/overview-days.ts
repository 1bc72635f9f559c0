import type { Counts } from '../../webhooks/log/event-overview';

// The overview's hours cut at the person's day and 4-hour boundaries: the chart's hours are whole
// UTC hours, so in a zone with a whole-hour offset each local day starts on a bar (in one with a
// half-hour offset, such as India's, on the bar that starts half an hour after local midnight).

export type Span = { first: number; count: number; date: string; hour: number };

/** Consecutive hours (from `start`, ms) grouped by `key` of their start's local date and hour. */
function spans(start: number, n: number, zone: string, key: (date: string, hour: number) => string): Span[] {
  // One formatter per page: not cached, so the isolate's bound on formatters (zone.ts) stays.
  const format = new Intl.DateTimeFormat('en-CA', {
    timeZone: zone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    hourCycle: 'h23',
  });
  const out: (Span & { key: string })[] = [];
  for (let i = 0; i < n; i++) {
    const parts = Object.fromEntries(
      format.formatToParts(start + i * 3_600_000).map((p) => [p.type, p.value]),
    );
    const date = `${parts.year}-${parts.month}-${parts.day}`;
    const hour = Number(parts.hour);
    const k = key(date, hour);
    const last = out[out.length - 1];
    if (last && last.key === k) last.count++;
    else out.push({ key: k, first: i, count: 1, date, hour });
  }
  return out.map(({ key: _, ...span }) => span);
}

/** The person's local days the hours fall in, oldest first (the first and last usually partial). */
export const localDays = (start: number, n: number, zone: string) => spans(start, n, zone, (date) => date);

/** The hours in local 4-hour blocks (00–04, 04–08…), for the chart at phone width. */
export const fourHours = (start: number, n: number, zone: string) =>
  spans(start, n, zone, (date, hour) => `${date} ${Math.floor(hour / 4)}`);

/** The sum of each status over `count` hours from `first`. */
export function totalOf(hours: Counts[], first: number, count: number): Counts {
  const t: Counts = { pending: 0, processed: 0, failed: 0, test: 0, rejected: 0 };
  for (const c of hours.slice(first, first + count)) {
    for (const s of Object.keys(t) as (keyof Counts)[]) t[s] += c[s];
  }
  return t;
}
