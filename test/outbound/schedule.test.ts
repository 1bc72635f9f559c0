import { describe, expect, it } from 'vitest';
import type { Bindings } from '../../src/env';
import { retryScale } from '../../src/outbound/policy';
import { retryDelayS, SCHEDULE_S } from '../../src/outbound/schedule';
import wranglerToml from '../../wrangler.toml?raw';

const env = (vars: Record<string, string>) => vars as unknown as Bindings;

describe('the retry schedule', () => {
  it('is the Svix schedule, jittered up to 10 % longer, never shorter', () => {
    expect([1, 2, 3, 4, 5, 6, 7].map((tries) => retryDelayS(tries, undefined, 0))).toEqual(
      SCHEDULE_S.slice(1),
    );
    expect(retryDelayS(2, undefined, 1)).toBe(330);
    expect(retryDelayS(8, undefined, 0)).toBeUndefined();
  });

  it('a scale shortens it for a drill, keeping every attempt, and never a Retry-After', () => {
    expect([1, 2, 3, 4, 5, 6, 7].map((tries) => retryDelayS(tries, undefined, 0, 0.002))).toEqual([
      1, 1, 4, 15, 36, 72, 72,
    ]);
    expect(retryDelayS(8, undefined, 0, 0.002)).toBeUndefined();
    expect(retryDelayS(2, 20, 0, 0.002)).toBe(20);
  });
});

describe('OUTBOUND_RETRY_SCALE', () => {
  it('is honoured only in a local run (OUTBOUND_ALLOW_HTTP_LOCALHOST="true"), and only to shorten', () => {
    const local = { OUTBOUND_ALLOW_HTTP_LOCALHOST: 'true' };
    expect(retryScale(env({ ...local, OUTBOUND_RETRY_SCALE: '0.002' }))).toBe(0.002);
    expect(retryScale(env({ OUTBOUND_RETRY_SCALE: '0.002' }))).toBe(1);
    expect(retryScale(env({ OUTBOUND_ALLOW_HTTP_LOCALHOST: 'yes', OUTBOUND_RETRY_SCALE: '0.002' }))).toBe(1);
    for (const refused of ['0', '-1', '2', '', 'fast', 'Infinity', '1e-400'])
      expect(retryScale(env({ ...local, OUTBOUND_RETRY_SCALE: refused }))).toBe(1);
    expect(retryScale(env(local))).toBe(1);
    const planted = Object.create({ OUTBOUND_ALLOW_HTTP_LOCALHOST: 'true', OUTBOUND_RETRY_SCALE: '0.002' });
    expect(retryScale(planted)).toBe(1);
  });

  it('is never set by wrangler.toml (what deploys), nor is the local flag it needs', () => {
    expect(wranglerToml).not.toMatch(/OUTBOUND_RETRY_SCALE|OUTBOUND_ALLOW_HTTP_LOCALHOST\s*=/);
  });
});
