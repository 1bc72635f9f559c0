// IANA time zones as the runtime's Intl knows them: which names are real, and a local calendar day
// in a zone as a UTC range (a person's "24/11/2026" is not UTC's).

let known: ReadonlySet<string> | undefined;

/** Every zone name Intl offers, plus `UTC` (which `supportedValuesOf` leaves out), sorted. */
export function zoneNames(): readonly string[] {
  return [...zoneSet()];
}

function zoneSet(): ReadonlySet<string> {
  // Built from Intl alone, the same in every isolate: no account's input reaches it.
  known ??= new Set(['UTC', ...Intl.supportedValuesOf('timeZone')].sort());
  return known;
}

const ZONE_NAME = /^[A-Za-z][A-Za-z0-9_+\-/]{0,63}$/;

/**
 * The zone `raw` names (a cookie, a form), or undefined. One of the runtime's list as it is; an
 * alias Intl also knows (`Asia/Kolkata`, `utc`) as Intl's own spelling of it, so the names a
 * caller can make the isolate hold formatters for stay Intl's few hundred.
 */
export function validZone(raw: string | undefined): string | undefined {
  if (raw === undefined || !ZONE_NAME.test(raw)) return undefined;
  if (zoneSet().has(raw)) return raw;
  try {
    return new Intl.DateTimeFormat('en', { timeZone: raw }).resolvedOptions().timeZone;
  } catch {
    return undefined;
  }
}

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;

// A day's start takes some 20 formats (the bisection below): one formatter per zone, not per step,
// for the few zones a batch of events uses; the least recently made dropped past the bound.
const MAX_DATE_FORMATS = 16;
const dateFormats = new Map<string, Intl.DateTimeFormat>();

/** The calendar date (`YYYY-MM-DD`) of the instant `ms` in `zone`. */
function localDate(ms: number, zone: string): string {
  let format = dateFormats.get(zone);
  if (!format) {
    // en-CA writes dates as YYYY-MM-DD.
    format = new Intl.DateTimeFormat('en-CA', {
      timeZone: zone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
    });
    dateFormats.set(zone, format);
    if (dateFormats.size > MAX_DATE_FORMATS) dateFormats.delete(dateFormats.keys().next().value as string);
  }
  return format.format(ms);
}

/** The first instant (to the minute) whose date in `zone` is `day` or later. */
function dayStart(day: string, utcMidnight: number, zone: string): number {
  // Every zone's offset lies within ±14 h: the day starts inside this window, and "the local date
  // is `day` or later" only turns true once in it, so a bisection finds the turn.
  let lo = utcMidnight - 15 * 3_600_000;
  let hi = utcMidnight + 15 * 3_600_000;
  while (hi - lo > 60_000) {
    const mid = lo + Math.floor((hi - lo) / 120_000) * 60_000;
    if (localDate(mid, zone) >= day) hi = mid;
    else lo = mid;
  }
  return hi;
}

/**
 * A whole local day in `zone` as a UTC range: `from` its first instant, `to` the next day's (so
 * `from <= t < to`), both ISO 8601 in UTC; undefined for a date that is not real or a zone that is
 * not known. A day a clock change shortens or lengthens gets its real length (23 or 25 hours).
 */
export function dayRange(day: string, zone: string): { from: string; to: string } | undefined {
  const from = dayStartIn(day, zone);
  if (from === undefined) return undefined;
  const next = new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
  return { from: new Date(from).toISOString(), to: new Date(dayStartIn(next, zone) ?? from).toISOString() };
}

/**
 * The first instant (epoch ms, to the minute) of the local day `day` (`YYYY-MM-DD`) in `zone`:
 * where a date with no time starts for a person there. Undefined for a date that is not real or a
 * zone that is not known.
 */
export function dayStartIn(day: string, zone: string): number | undefined {
  const m = DAY.exec(day);
  if (!m || validZone(zone) === undefined) return undefined;
  const midnight = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  if (new Date(midnight).toISOString().slice(0, 10) !== day) return undefined;
  return dayStart(day, midnight, zone);
}

const LOCAL_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})$/;

/** The wall-clock time of the instant `ms` in `zone`, as a `datetime-local` input holds it (`YYYY-MM-DDTHH:MM`). */
export function wallClock(ms: number, zone: string): string {
  const parts = new Intl.DateTimeFormat('en-CA', {
    timeZone: zone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
  }).formatToParts(ms);
  const p = Object.fromEntries(parts.map((part) => [part.type, part.value]));
  return `${p.year}-${p.month}-${p.day}T${p.hour}:${p.minute}`;
}

/**
 * The instant (epoch ms) a person means by the wall-clock time `local` (`YYYY-MM-DDTHH:MM`, what a
 * `datetime-local` input sends) in `zone`; undefined for a time that is not real or a zone not
 * known. Two readings of the offset settle it, except at a clock change, where a time the change
 * skips or repeats gets one of the offsets around it.
 */
export function localInstant(local: string, zone: string): number | undefined {
  const m = LOCAL_TIME.exec(local);
  if (!m || validZone(zone) === undefined) return undefined;
  const [, y, mo, d, h, mi] = m.map(Number) as [number, number, number, number, number, number];
  const wall = Date.UTC(y, mo - 1, d, h, mi);
  if (new Date(wall).toISOString().slice(0, 16) !== local) return undefined;
  // The zone's offset at an instant: its wall clock there, read as UTC, less the instant.
  const offset = (ms: number) => Date.parse(`${wallClock(ms, zone)}Z`) - ms;
  return wall - offset(wall - offset(wall));
}
