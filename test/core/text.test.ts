import { describe, expect, it } from 'vitest';
import { Email } from '../../src/contracts/common';
import { parseEmail } from '../../src/core/text';

describe('parseEmail', () => {
  it('trims an address and keeps its case', () => {
    expect(parseEmail('  Ana@Example.com ')).toBe('Ana@Example.com');
  });

  // A webhook's email field and a /v1 body's `email` must accept exactly the same addresses.
  it.each([
    ['ana@example.com'],
    ["o'neil+crm@mail.example.com.br"],
    ['a.b_c-d@sub-domain.example.co'],
    ['a@b'],
    ['@b.co'],
    ['a b@c.co'],
    ['.a@b.co'],
    ['a..b@c.co'],
    ['a.@b.co'],
    ['a@-b.co'],
    ['a@b.c'],
    ['ana@exemplo.com.br\n'],
    [`${'x'.repeat(243)}@example.com`],
    [`${'x'.repeat(242)}@example.com`],
    [''],
  ])('agrees with the Email contract on %j', (value) => {
    const parsed = Email.safeParse(value);
    expect(parseEmail(value)).toBe(parsed.success ? parsed.data : undefined);
  });
});
