import { validZone } from '../core/zones';
import type { Lang } from './i18n';

// The time zone a person's pages show times in: the `tz` cookie (set on the settings page) when it
// names a zone of the runtime's list; else, in Portuguese, Brasília's; in English, the zone
// Cloudflare places the request in, else UTC.

export const ZONE_COOKIE = 'tz';

export const BRASILIA = 'America/Sao_Paulo';

/** The zone of a request: its cookie's when valid, else the default of its language. */
export function chooseZone(cookie: string | undefined, lang: Lang, located: unknown): string {
  const chosen = validZone(cookie);
  if (chosen) return chosen;
  if (lang === 'pt-BR') return BRASILIA;
  return validZone(typeof located === 'string' ? located : undefined) ?? 'UTC';
}

type Formatters = { date: Intl.DateTimeFormat; name: Intl.DateTimeFormat };

/**
 * How many language-and-zone pairs keep their formatters. Any request picks its zone by a cookie
 * (the preferences page needs no session), and each pair's two ICU formatters weigh some 30 KB
 * outside the JS heap: unbounded, ~1,200 requests could make the shared isolate hold every pair
 * of Intl's list (tens of MB). A person's pages use one pair; a few dozen cover every reader.
 */
export const MAX_CACHED_ZONES = 32;

const formats = new Map<string, Formatters>();

/** The pairs held now (for the test of the bound). */
export const cachedZones = () => formats.size;

/** The two formatters of a language and zone, the least recently used pair dropped past the bound. */
function formatters(lang: Lang, zone: string): Formatters {
  const id = `${lang} ${zone}`;
  let found = formats.get(id);
  if (found) {
    // Moved to the end: the Map's order is its use order.
    formats.delete(id);
    formats.set(id, found);
    return found;
  }
  found = {
    date: new Intl.DateTimeFormat(lang, {
      timeZone: zone,
      ...(lang === 'en'
        ? { dateStyle: 'medium', timeStyle: 'short' }
        : { dateStyle: 'short', timeStyle: 'short' }),
    }),
    // Portuguese names a zone in words ("Horário Padrão de Brasília"); English by its short name
    // ("UTC", "EST"), which is what English speakers read on a clock.
    name: new Intl.DateTimeFormat(lang, { timeZone: zone, timeZoneName: lang === 'en' ? 'short' : 'long' }),
  };
  formats.set(id, found);
  if (formats.size > MAX_CACHED_ZONES) formats.delete(formats.keys().next().value as string);
  return found;
}

/** The name of `zone` at the instant `ms` in `lang` ("Horário Padrão de Brasília", "UTC"). */
export const zoneName = (lang: Lang, zone: string, ms = Date.now()) =>
  formatters(lang, zone)
    .name.formatToParts(ms)
    .find((part) => part.type === 'timeZoneName')?.value ?? zone;

/**
 * An instant as a person reads it, in their language and zone, with the zone's name:
 * "24/11/2026 16:41 (Horário Padrão de Brasília)", "Nov 24, 2026, 7:41 PM (UTC)".
 */
export function localTime(iso: string, lang: Lang, zone: string): string {
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) return iso;
  const { date } = formatters(lang, zone);
  const text = lang === 'en' ? date.format(ms) : date.format(ms).replace(', ', ' ');
  return `${text} (${zoneName(lang, zone, ms)})`;
}

// A calendar date a date field wrote (`2027-01-02`): a day, in no zone.
const CALENDAR_DATE = /^\d{4}-\d{2}-\d{2}$/;

/**
 * A calendar date as the language writes a day (02/01/2027, Jan 2, 2027), or undefined for any
 * other value: a custom field's date on a record's page and in a preview's sentences alike.
 */
export function dayText(value: unknown, lang: Lang): string | undefined {
  const day =
    typeof value === 'string' && CALENDAR_DATE.test(value) ? Date.parse(`${value}T00:00:00Z`) : Number.NaN;
  if (Number.isNaN(day)) return undefined;
  return new Intl.DateTimeFormat(lang, {
    dateStyle: lang === 'en' ? 'medium' : 'short',
    timeZone: 'UTC',
  }).format(day);
}
