/** The two digits of each number below 100, so a field of a time is written with one lookup. */
const TWO = Array.from({ length: 100 }, (_, n) => String(n).padStart(2, '0'));

const DAY = 86_400_000;
/** 9999-12-31T23:59:59.999Z: past it, and before 1970, the year is not four plain digits. */
const LAST = 253_402_300_799_999;

/** a / b rounded down, for 0 <= a < 2^31: in integer arithmetic, where Math.floor works on doubles. */
const quotient = (a: number, b: number) => (a / b) | 0;

/**
 * `new Date(ms).toISOString()`, written by hand: a list answers with three or four times per row,
 * and the builtin (a Date, then a call into the runtime) was most of the presenters' time. The
 * same text for every integer ms from 1970 to the year 9999; anything else goes to the builtin.
 */
export function isoTime(ms: number): string {
  if (!(ms >= 0 && ms <= LAST && Number.isInteger(ms))) return new Date(ms).toISOString();
  const days = Math.floor(ms / DAY);
  const msOfDay = ms - days * DAY;
  const secondsOfDay = quotient(msOfDay, 1000);
  const minutesOfDay = quotient(secondsOfDay, 60);
  const hours = quotient(minutesOfDay, 60);
  // The civil date of a day number (Howard Hinnant's days_from_civil, inverted), from 0000-03-01.
  const z = days + 719_468;
  const era = quotient(z, 146_097);
  const dayOfEra = z - era * 146_097;
  const yearOfEra = quotient(
    dayOfEra - quotient(dayOfEra, 1460) + quotient(dayOfEra, 36_524) - quotient(dayOfEra, 146_096),
    365,
  );
  const dayOfYear = dayOfEra - (365 * yearOfEra + quotient(yearOfEra, 4) - quotient(yearOfEra, 100));
  const monthFromMarch = quotient(5 * dayOfYear + 2, 153);
  const day = dayOfYear - quotient(153 * monthFromMarch + 2, 5) + 1;
  const month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9;
  const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
  const century = quotient(year, 100);
  const milliseconds = msOfDay - secondsOfDay * 1000;
  const tenthsOfSecond = quotient(milliseconds, 100);
  return `${TWO[century]}${TWO[year - century * 100]}-${TWO[month]}-${TWO[day]}T${TWO[hours]}:${
    TWO[minutesOfDay - hours * 60]
  }:${TWO[secondsOfDay - minutesOfDay * 60]}.${tenthsOfSecond}${TWO[milliseconds - tenthsOfSecond * 100]}Z`;
}
