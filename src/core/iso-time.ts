/** Two and three digits of each number, so a time is written with one lookup per field. */
const TWO = Array.from({ length: 100 }, (_, n) => String(n).padStart(2, '0'));
const THREE = Array.from({ length: 1000 }, (_, n) => String(n).padStart(3, '0'));

const DAY = 86_400_000;
/** 9999-12-31T23:59:59.999Z: past it, and before 1970, the year is not four plain digits. */
const LAST = 253_402_300_799_999;

/**
 * `new Date(ms).toISOString()`, written by hand: a list answers with three or four times per row,
 * and the builtin (a Date, then a call into the runtime) was most of the presenters' time. The
 * same text for every integer ms from 1970 to the year 9999; anything else goes to the builtin.
 */
export function isoTime(ms: number): string {
  if (!(ms >= 0 && ms <= LAST && Number.isInteger(ms))) return new Date(ms).toISOString();
  const days = Math.floor(ms / DAY);
  let rest = ms - days * DAY;
  const hours = Math.floor(rest / 3_600_000);
  rest -= hours * 3_600_000;
  const minutes = Math.floor(rest / 60_000);
  rest -= minutes * 60_000;
  const seconds = Math.floor(rest / 1000);
  // The civil date of a day number (Howard Hinnant's days_from_civil, inverted), from 0000-03-01.
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const dayOfEra = z - era * 146_097;
  const yearOfEra = Math.floor(
    (dayOfEra -
      Math.floor(dayOfEra / 1460) +
      Math.floor(dayOfEra / 36_524) -
      Math.floor(dayOfEra / 146_096)) /
      365,
  );
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const monthFromMarch = Math.floor((5 * dayOfYear + 2) / 153);
  const day = dayOfYear - Math.floor((153 * monthFromMarch + 2) / 5) + 1;
  const month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9;
  const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
  return `${TWO[Math.floor(year / 100)]}${TWO[year % 100]}-${TWO[month]}-${TWO[day]}T${TWO[hours]}:${TWO[minutes]}:${TWO[seconds]}.${THREE[rest - seconds * 1000]}Z`;
}
