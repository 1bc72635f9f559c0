import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mask, withCheckDigits } from '../cnpj';
import { call, type Json, json, newAccount } from '../helpers';
import { runImport } from '../routes/bulk/import-support';
import { settings, TIMEOUT } from './checks';

/**
 * Issue 40: import, then export, then re-import with `upsert` changes nothing. The files are what
 * spreadsheets write: accents, quotes, the delimiter and line breaks inside cells, cells that look
 * like formulas, CNPJ and phones in any mask, empty cells; `,` or `;` files, and the export as CSV
 * or as pt-BR Excel's.
 */

const UNITS = [...'abcXYZ áãçÉÕü', '"', "'", ';', ',', '\n', '\r\n', '=', '+', '-', '@', '\t'];
const cellText = fc
  .tuple(fc.constantFrom(...'AaÉçÕ'), fc.array(fc.constantFrom(...UNITS), { maxLength: 10 }))
  .chain(([first, rest]) =>
    fc.constantFrom(first + rest.join(''), rest.join('') + first, `${rest.join('')}${first}${rest.join('')}`),
  );
const optional = fc.option(cellText, { nil: '' });

let serial = 0;
const PHONE_MASKS = [
  (d: string) => `(11) ${d.slice(0, 5)}-${d.slice(5)}`,
  (d: string) => `+55 11 ${d.slice(0, 5)} ${d.slice(5)}`,
  (d: string) => `11${d}`,
  (d: string) => `+55 (11) ${d}`,
];
const CNPJ_MASKS = [mask, (c: string) => c, (c: string) => ` ${mask(c).replaceAll('.', '')} `];

const company = fc.record({ name: cellText, segment: optional, observations: optional, cnpjMask: fc.nat(2) });
const contact = fc.record({
  name: cellText,
  email: fc.boolean(),
  phoneMask: fc.option(fc.nat(3), { nil: undefined }),
  company: fc.option(fc.nat(), { nil: undefined }),
  cnpjMask: fc.nat(2),
});

/** One CSV line, quoted as RFC 4180 says wherever a cell needs it. */
const line = (cells: string[], d: string) =>
  cells.map((c) => (/[",;\r\n\t]/.test(c) || c !== c.trim() ? `"${c.replaceAll('"', '""')}"` : c)).join(d);

/** Every record of a list, `updated_at` left out (a re-import may move it). */
async function snapshot(key: string, resource: string): Promise<Json[]> {
  const { data } = await json(await call(`/v1/${resource}?limit=100&sort=created_at`, { key }));
  return data.map(({ updated_at: _, ...rest }: Json) => rest);
}

describe('import, export, re-import (upsert)', () => {
  it(
    'changes no company and no contact, and creates none',
    async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.array(company, { minLength: 1, maxLength: 6 }),
          fc.array(contact, { minLength: 1, maxLength: 6 }),
          fc.constantFrom(',', ';'),
          fc.constantFrom('csv', 'excel'),
          async (companies, contacts, d, format) => {
            const { key } = await newAccount();
            const cnpjs = companies.map(() => withCheckDigits(`${52_000_000 + ++serial}0001`));
            const companyFile = [
              line(['Razão social', 'CNPJ', 'Segmento', 'Observações'], d),
              ...companies.map((c, i) =>
                line(
                  [c.name, CNPJ_MASKS[c.cnpjMask]?.(cnpjs[i] as string) ?? '', c.segment, c.observations],
                  d,
                ),
              ),
            ];
            const contactFile = [
              line(['Nome', 'E-mail', 'Telefone', 'CNPJ'], d),
              ...contacts.map((c, i) => {
                const tag = `${serial}x${i}`;
                const digits = `9${String(serial * 10 + i).padStart(8, '0')}`;
                const phone = c.phoneMask === undefined ? '' : (PHONE_MASKS[c.phoneMask]?.(digits) ?? '');
                const of = c.company === undefined ? '' : (cnpjs[c.company % cnpjs.length] as string);
                const cnpj = of && (CNPJ_MASKS[c.cnpjMask]?.(of) ?? '');
                return line([c.name, c.email ? `p${tag}@rt.example` : '', phone, cnpj], d);
              }),
            ];
            const files = { companies: companyFile, contacts: contactFile };
            for (const [resource, lines] of Object.entries(files)) {
              const first = await runImport(key, `resource=${resource}`, `${lines.join('\r\n')}\r\n`);
              expect(first.counts.failed, resource).toBe(0);
            }
            const before = {
              companies: await snapshot(key, 'companies'),
              contacts: await snapshot(key, 'contacts'),
            };
            for (const resource of ['companies', 'contacts'] as const) {
              const exported = await (await call(`/v1/${resource}/export?format=${format}`, { key })).text();
              const again = await runImport(key, `resource=${resource}&mode=upsert`, exported);
              expect(again, exported).toMatchObject({
                status: 'completed',
                counts: { rows: before[resource].length, created: 0, failed: 0 },
              });
            }
            expect(await snapshot(key, 'companies')).toEqual(before.companies);
            expect(await snapshot(key, 'contacts')).toEqual(before.contacts);
          },
        ),
        settings(4),
      );
    },
    TIMEOUT * 2,
  );
});
