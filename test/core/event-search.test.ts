import { describe, expect, it } from 'vitest';
import { dayRange } from '../../src/core/zones';
import { eventMatch, phoneDigits } from '../../src/webhooks/rules/event-search';

describe('eventMatch: what a person types, as an FTS5 query that holds no syntax of theirs', () => {
  it('reads a phone number in any format as its digits, without a trunk 0 or Brazil’s code', () => {
    for (const typed of [
      '(11) 91234-5678',
      '11912345678',
      '+55 11 91234 5678',
      '5511912345678',
      '011 91234-5678',
    ]) {
      expect(phoneDigits(typed), typed).toBe('11912345678');
    }
    expect(phoneDigits('1234-567')).toBeUndefined();
    expect(phoneDigits('ana 11912345678')).toBeUndefined();
    expect(eventMatch('(11) 91234-5678')).toBe('({body} : "(11) 91234-5678" OR {digits} : "11912345678")');
  });

  it('quotes every word, doubling its quotes, and keeps words of 3 characters or more', () => {
    expect(eventMatch('Ana de Souza')).toBe('{body} : "Ana" AND {body} : "Souza"');
    expect(eventMatch('a"b NEAR(x) payload:*')).toBe(
      '{body} : "a""b" AND {body} : "NEAR(x)" AND {body} : "payload:*"',
    );
    expect(eventMatch('a b')).toBe('{body} : "a b"');
    expect(eventMatch('ana\u0000\u0001souza')).toBe('{body} : "ana" AND {body} : "souza"');
  });
});

describe('zone days: the panel’s date inputs as whole days in a zone', () => {
  it('starts and ends a day of São Paulo at 03:00Z, and a day whose midnight the clock skipped at its first instant', () => {
    expect(dayRange('2026-03-05', 'America/Sao_Paulo')).toEqual({
      from: '2026-03-05T03:00:00.000Z',
      to: '2026-03-06T03:00:00.000Z',
    });
    expect(dayRange('2026-12-31', 'America/Sao_Paulo')?.to).toBe('2027-01-01T03:00:00.000Z');
    expect(dayRange('2026-02-30', 'America/Sao_Paulo')).toBeUndefined();
    expect(dayRange('nope', 'America/Sao_Paulo')).toBeUndefined();
    // São Paulo's last DST began at 00:00 on 4 November 2018: that day began at 01:00 (-02:00).
    expect(dayRange('2018-11-04', 'America/Sao_Paulo')?.from).toBe('2018-11-04T03:00:00.000Z');
    expect(dayRange('2018-11-03', 'America/Sao_Paulo')?.to).toBe('2018-11-04T03:00:00.000Z');
    expect(dayRange('2019-02-17', 'America/Sao_Paulo')?.from).toBe('2019-02-17T03:00:00.000Z');
    expect(dayRange('2026-07-01', 'Europe/Lisbon')?.from).toBe('2026-06-30T23:00:00.000Z');
  });
});
