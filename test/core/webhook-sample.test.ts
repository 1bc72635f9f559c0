import { describe, expect, it } from 'vitest';
import { canonicalCnpj } from '../../src/core/cnpj';
import { normalizePhone } from '../../src/core/phone';
import { pickSample, sampleCandidates, samplePayload, storedForms } from '../../src/webhooks/rules/sample';

const values = { phone: '+55 11 90000-0001', email: 'exemplo-1@example.com', cnpj: '11.222.333/0001-81' };

describe('samplePayload', () => {
  it('puts a key such as __proto__.x in the body, never on Object.prototype', () => {
    const body = samplePayload(
      [
        { key: '__proto__.x', type: 'string' },
        { key: 'constructor.prototype.y', type: 'number' },
        { key: '__proto__', type: 'boolean' },
        { key: 'lead.__proto__.z', type: 'email' },
      ],
      values,
    );
    const probe: Record<string, unknown> = {};
    expect([probe.x, probe.y, probe.z]).toEqual([undefined, undefined, undefined]);
    expect(Object.hasOwn(Object.prototype, 'x')).toBe(false);
    expect(Object.getPrototypeOf(body)).toBeNull();
    // The later scalar at `__proto__` replaces the object an earlier key made there: an own key still.
    expect(JSON.parse(JSON.stringify(body))).toEqual(
      JSON.parse(
        '{"__proto__":true,"constructor":{"prototype":{"y":1000}},"lead":{"__proto__":{"z":"exemplo-1@example.com"}}}',
      ),
    );
  });

  it('fills each key at its path with a value of its type, the CNPJ target with the CNPJ', () => {
    const body = samplePayload(
      [
        { key: 'lead.name', type: 'string' },
        { key: 'lead.phone', type: 'phone' },
        { key: 'doc', type: 'string', target: 'company.cnpj' },
        { key: 'when', type: 'date' },
      ],
      values,
      new Date('2026-11-25T12:00:00Z'),
    );
    expect(JSON.parse(JSON.stringify(body))).toEqual({
      lead: { name: 'Ana Souza', phone: values.phone },
      doc: values.cnpj,
      when: '2026-11-25',
    });
  });

  it('writes a date in the field’s first format and gives a dealership’s lead plausible values', () => {
    const body = samplePayload(
      [
        { key: 'data_compra', type: 'date', formats: ['DD/MM/YYYY HH:mm', 'YYYY'] },
        { key: 'Veículo', type: 'string' },
        { key: 'cliente', type: 'string', target: 'contact.custom_fields.cliente' },
        { key: 'loja', type: 'string', target: 'company.name' },
        { key: 'preco', type: 'number' },
        { key: 'ano', type: 'number' },
        { key: 'interesse_x', type: 'string' },
      ],
      values,
      new Date('2026-03-05T14:07:09Z'),
    );
    expect(JSON.parse(JSON.stringify(body))).toEqual({
      data_compra: '05/03/2026 14:07',
      Veículo: 'Onix LT 1.0',
      cliente: 'Ana Souza',
      loja: 'Auto Center Paulista',
      preco: 89900,
      ano: 2024,
      interesse_x: 'Exemplo',
    });
  });
});

describe('sample values', () => {
  it('are valid, drawn afresh each time, and skip the ones the account holds', () => {
    const a = sampleCandidates();
    const b = sampleCandidates();
    expect(a.phones).not.toEqual(b.phones);
    for (const phone of a.phones) expect(normalizePhone(phone)).toMatch(/^\+55119\d{8}$/);
    for (const cnpj of a.cnpjs) expect(canonicalCnpj(cnpj)).toBe(cnpj.replace(/[./-]/g, ''));
    for (const email of a.emails) expect(email).toMatch(/^exemplo-[0-9a-f]{16}@example\.com$/);
    const stored = storedForms(a);
    const taken = new Set(
      [stored.phones[0], stored.emails[0], stored.emails[1], stored.cnpjs[0]].map(String),
    );
    expect(pickSample(a, taken)).toEqual({ phone: a.phones[1], email: a.emails[2], cnpj: a.cnpjs[1] });
  });
});
