import { describe, expect, it } from 'vitest';
import type { FieldMapping } from '../../src/webhooks/rules/config';
import { keptBody, leadOf } from '../../src/webhooks/rules/lead-name';

const mapped: FieldMapping[] = [
  { key: 'cliente.nome', type: 'string', target: 'contact.name', required: false },
  { key: 'fone', type: 'phone', target: 'contact.phone', required: false },
];

describe('leadOf', () => {
  it('names the lead by the mapped fields first', () => {
    expect(leadOf(mapped, { cliente: { nome: 'Ana Souza' }, fone: '11 91234-5678', nome: 'Outra' })).toEqual([
      'Ana Souza',
      '11 91234-5678',
    ]);
  });

  it('names it by the keys and values that say who it is when the mapping no longer does', () => {
    // The mapping's keys were renamed after these events arrived.
    expect(
      leadOf(mapped, { nome: 'Ana Souza', celular: '(11) 91234-5678', contato: 'ana@example.com' }),
    ).toEqual(['Ana Souza', '(11) 91234-5678', 'ana@example.com']);
    expect(leadOf([], { lead: { name: 'Bia Lima', email: 'bia@example.com' } })).toEqual([
      'Bia Lima',
      'bia@example.com',
    ]);
  });

  it('says nothing for a body with no lead in it, or none at all', () => {
    expect(leadOf([], { utm: 'google', ano: 2024 })).toEqual([]);
    expect(leadOf(mapped, null)).toEqual([]);
    expect(leadOf(mapped, 'texto')).toEqual([]);
  });

  it('reads a refused call’s kept text only when it is whole JSON', () => {
    expect(keptBody('{"nome":"Carla"}')).toEqual({ nome: 'Carla' });
    expect(keptBody('{"nome": "Carla"')).toBeUndefined();
    expect(keptBody(null)).toBeUndefined();
    expect(leadOf([], keptBody('{"nome":"Carla","telefone":""}'))).toEqual(['Carla']);
  });
});
