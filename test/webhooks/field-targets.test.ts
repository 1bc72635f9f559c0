import { describe, expect, it } from 'vitest';
import { CompanyUpdate } from '../../src/contracts/companies';
import { ContactUpdate } from '../../src/contracts/contacts';
import { DealUpdate } from '../../src/contracts/deals';
import { requiredTargetErrors } from '../../src/webhooks/config/field-targets';
import type { FieldMapping } from '../../src/webhooks/rules/config';
import type { FieldValue } from '../../src/webhooks/rules/fields';

const updates = { contact: ContactUpdate, company: CompanyUpdate, deal: DealUpdate };

const VALUES: FieldValue[] = [
  '',
  ' ',
  'Ana',
  'a'.repeat(256),
  'a'.repeat(20_000),
  'ana@exemplo.com.br',
  'not an email',
  '+5511987654321',
  '11987654321',
  '2026-03-01',
  '2026-03-01T12:00:00.000Z',
  'open',
  'won',
  'lost',
  '12.345.678/0001-95',
  '12345678000195',
  '89900.5',
  0,
  1,
  -1,
  1.5,
  42,
  1e20,
  Number.MAX_SAFE_INTEGER,
  true,
  false,
];

/** What the whole update schema says of the value as a body of its one field (the slow path). */
function wholeUpdate(target: string, value: FieldValue): string | undefined {
  const [record = '', field = ''] = target.split(/\.(.*)/s);
  const schema = updates[record as keyof typeof updates];
  const custom = /^custom_fields\.(.+)$/s.exec(field)?.[1];
  const body = custom === undefined ? { [field]: value } : { custom_fields: { [custom]: value } };
  const parsed = schema.safeParse(body);
  return parsed.success
    ? undefined
    : `Does not fit ${target}: ${parsed.error.issues[0]?.message ?? 'Invalid.'}`;
}

describe('requiredTargetErrors', () => {
  it('gives, for every field of every record (and custom, read-only and unknown ones), the whole update schema’s answer', () => {
    const targets = Object.entries(updates).flatMap(([record, schema]) => [
      ...Object.keys(schema.shape).map((field) => `${record}.${field}`),
      `${record}.custom_fields.veiculo`,
      `${record}.custom_fields.__proto__`,
      `${record}.id`,
      `${record}.created_at`,
      `${record}.nope`,
    ]);
    let refused = 0;
    for (const target of targets) {
      for (const value of VALUES) {
        const errors = requiredTargetErrors(
          [{ key: 'k', type: 'string', required: true, target: target as FieldMapping['target'] }],
          new Map([['k', value]]),
        );
        const expected = wholeUpdate(target, value);
        if (expected) refused += 1;
        expect(errors, `${target} = ${JSON.stringify(value)}`).toEqual(
          expected === undefined ? [] : [{ path: 'k', code: 'invalid_type', message: expected }],
        );
      }
    }
    // The samples meet both answers.
    expect(refused).toBeGreaterThan(50);
    expect(refused).toBeLessThan(targets.length * VALUES.length);
  });
});
