import type { Lang } from './i18n';

// A date format as a person writes it: Portuguese says AAAA (ano) where the stored token is YYYY.
// Only what is shown is translated; what a person types is read back to the stored tokens, so a
// format is stored and compared (the form's digests) as YYYY whatever the page's language.

/** A stored format (or a list of them, one per line) as the page's language writes it. */
export const shownFormat = (lang: Lang, format: string): string =>
  lang === 'en' ? format : format.replaceAll('YYYY', 'AAAA');

/**
 * A typed format in the stored tokens: AAAA (or aaaa) is the year. No stored format holds an A
 * (formats take only YYYY, MM, DD, HH, mm, ss and separators), so nothing else is changed.
 */
export const typedFormat = (format: string): string => format.replace(/AAAA|aaaa/g, 'YYYY');
