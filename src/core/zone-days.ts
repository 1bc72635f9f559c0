import { parseDate } from './filters';

/**
 * The zone the panel's date filters read whole days in, until the page passes the person's own
 * (their setting; pt-BR's default): the event list's "from"/"to" dates are days there.
 */
export const PANEL_ZONE = 'America/Sao_Paulo';

const DAY_MS = 24 * 60 * 60_000;

/** How far `zone`'s clock is ahead of UTC at instant `ms`, in ms (negative west of Greenwich). */
function offsetAt(ms: number, zone: string): number {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone: zone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  }).formatToParts(ms);
  const n = (type: string) => Number(parts.find((p) => p.type === type)?.value);
  const wall = Date.UTC(n('year'), n('month') - 1, n('day'), n('hour'), n('minute'), n('second'));
  return wall - Math.floor(ms / 1000) * 1000;
}

/** The date (YYYY-MM-DD) `zone`'s clock shows at instant `ms`. */
const dateAt = (ms: number, zone: string) =>
  new Intl.DateTimeFormat('en-CA', {
    timeZone: zone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  }).format(ms);

/**
 * The instant day `date` (YYYY-MM-DD) starts in `zone`, or undefined when it is no real date: its
 * midnight at the offset of the hours around it, or, on a day whose midnight the clock skips (DST
 * starting at 00:00), the first instant that is that day.
 */
export function zoneDayStart(date: string, zone: string = PANEL_ZONE): number | undefined {
  const midnight = parseDate(date);
  if (midnight === undefined) return undefined;
  const before = midnight - offsetAt(midnight, zone);
  const after = midnight - offsetAt(before, zone);
  return [Math.min(before, after), Math.max(before, after)].find((ms) => dateAt(ms, zone) === date) ?? before;
}

/** The instant the day after `date` starts in `zone`: the end (excluded) of a range that ends on it. */
export function zoneDayEnd(date: string, zone: string = PANEL_ZONE): number | undefined {
  const midnight = parseDate(date);
  if (midnight === undefined) return undefined;
  return zoneDayStart(new Date(midnight + DAY_MS).toISOString().slice(0, 10), zone);
}
