import { describe, expect, it } from 'vitest';
import { normalizePhone } from '../../src/core/phone';

describe('normalizePhone', () => {
  it.each([
    ['(11) 98765-4321', '+5511987654321'],
    ['11 98765-4321', '+5511987654321'],
    ['11987654321', '+5511987654321'],
    ['011 98765-4321', '+5511987654321'],
    ['+55 (11) 98765-4321', '+5511987654321'],
    ['55 11 98765-4321', '+5511987654321'],
    ['0055 11 98765-4321', '+5511987654321'],
    ['  (11) 98765-4321  ', '+5511987654321'],
    ['11.98765.4321', '+5511987654321'],
  ])('reads the Brazilian mobile %j as %s', (input, expected) => {
    expect(normalizePhone(input)).toBe(expected);
  });

  it.each([
    ['(11) 3456-7890', '+551134567890'],
    ['11 3456-7890', '+551134567890'],
    ['011 3456-7890', '+551134567890'],
    ['55 11 3456-7890', '+551134567890'],
    ['(21) 2345-6789', '+552123456789'],
  ])('reads the Brazilian landline %j as %s', (input, expected) => {
    expect(normalizePhone(input)).toBe(expected);
  });

  it.each([
    ['+1 415-555-2671', '+14155552671'],
    ['0044 20 7946 0958', '+442079460958'],
    ['+44 20 7946 0958', '+442079460958'],
    ['+49 30 12345678', '+493012345678'],
  ])('reads the international number %j as %s', (input, expected) => {
    expect(normalizePhone(input)).toBe(expected);
  });

  it.each([
    [''],
    ['   '],
    ['abc'],
    ['123'],
    ['(11) 8765-432'],
    ['+0123456789'],
    ['11 12345-6789'],
    ['(11) 98765-43210'],
    ['(10) 98765-4321'],
    ['11 1345-6789'],
    ['11 9345-6789'],
    ['+55 11 98765-4321 ext 2'],
    ['+1234567'],
    ['+1234567890123456'],
    ['+'],
    ['00'],
    ['++5511987654321'],
    ['+55 11 98765-4321x'],
  ])('refuses %j', (input) => {
    expect(normalizePhone(input)).toBeUndefined();
  });

  it('accepts international numbers of 8 to 15 digits only', () => {
    expect(normalizePhone('+12345678')).toBe('+12345678');
    expect(normalizePhone('+123456789012345')).toBe('+123456789012345');
    expect(normalizePhone('+1234567')).toBeUndefined();
    expect(normalizePhone('+1234567890123456')).toBeUndefined();
  });

  it('is idempotent on its own output', () => {
    for (const input of ['(11) 98765-4321', '(11) 3456-7890', '+1 415-555-2671', '0044 20 7946 0958']) {
      const once = normalizePhone(input);
      expect(once).toBeDefined();
      expect(normalizePhone(once as string)).toBe(once);
    }
  });
});
