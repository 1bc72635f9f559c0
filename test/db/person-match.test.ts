import { env } from 'cloudflare:workers';
import { sql } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/d1';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { normalizePhone } from '../../src/core/phone';
import { parseEmail } from '../../src/core/text';
import { names, phoneOf } from '../../src/db/person-match';
import { settings } from '../properties/checks';

const db = drizzle(env.DB);

/** What the SQL of src/db/person-match.ts makes of each text, in one query. */
async function sqlPhones(texts: string[]): Promise<(string | null)[]> {
  const rows = await db.all<{ p: string | null }>(
    sql`select ${phoneOf(sql`j.value`)} as p from json_each(${JSON.stringify(texts)}) j order by j.key`,
  );
  return rows.map((r) => r.p);
}

// Texts made of what phones are written with, plus what JS trim() and \s take that SQLite's
// trim() does not (tab, no-break and other Unicode spaces), and a letter now and then.
const phoneish = fc
  .array(
    fc.constantFrom(
      ...'0123456789'.split(''),
      '0',
      '5',
      '9',
      '+',
      '(',
      ')',
      '-',
      '.',
      ' ',
      '\t',
      '\n',
      '\u00a0',
      '\u2009',
      '\u3000',
      '\ufeff',
      'x',
    ),
    { maxLength: 24 },
  )
  .map((chars) => chars.join(''));

const written = fc
  .tuple(
    fc.constantFrom('', '+55 ', '0055 ', '55 ', '055 ', '0', '\t', '\u00a0+'),
    fc.constantFrom('(11) ', '11 ', '11', '21-'),
    fc.constantFrom('98765-4321', '9 8765 4321', '3456-7890', '987654321', '34567890'),
    fc.constantFrom('', ' ', '\t', '\u00a0', '\u3000'),
  )
  .map((parts) => parts.join(''));

describe('finding a person as ingest reads them (src/db/person-match.ts)', () => {
  it('a text is read as the phone normalizePhone reads, in SQL', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.oneof(phoneish, written), { minLength: 1, maxLength: 40 }),
        async (texts) => {
          const found = await sqlPhones(texts);
          texts.forEach((text, i) => {
            const phone = normalizePhone(text);
            // Every phone ingest reads is found; a text ingest does not read as a phone is never
            // taken for one that it could have written in the international form.
            if (phone !== undefined) expect(found[i], JSON.stringify(text)).toBe(phone);
            else if (/^[\s().-]*\+/.test(text)) {
              expect(String(found[i]), JSON.stringify(text)).not.toMatch(/^\+[1-9]\d{7,14}$/);
            }
          });
        },
      ),
      settings(60),
    );
  });

  it('a text names the contact when JS would trim and lower-case it to the email, or read the phone', async () => {
    const texts = [
      '\tZoe@X.co ',
      '\u00a0zoe@x.co\u3000',
      '\ufeffzoe@x.co\n',
      ' zoe@x.co\u2028',
      '(11)\u00a097777-6666',
    ];
    const others = ['zoe@x.co.', 'jzoe@x.co', 'zoe@x.com', '(11) 97777-6660', 'zoe @x.co'];
    const rows = await db.all<{ hit: number }>(
      sql`select ${names(sql`j.value`)} as hit
        from json_each(${JSON.stringify([...texts, ...others])}) j, (select 'zoe@x.co' as email_norm, '+5511977776666' as phone) c
        order by j.key`,
    );
    expect(rows.map((r) => r.hit)).toEqual([...texts.map(() => 1), ...others.map(() => 0)]);
    // As ingest reads them.
    for (const text of texts.slice(0, 4)) expect(parseEmail(text)?.toLowerCase()).toBe('zoe@x.co');
    expect(normalizePhone(texts[4] ?? '')).toBe('+5511977776666');
  });
});
