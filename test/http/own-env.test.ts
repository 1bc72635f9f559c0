import { createExecutionContext } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import worker from '../../src/index';
import { injected, strandedAfterMs } from '../../src/webhooks/rules/faults';
import { BASE, expectProblem, newAccount } from '../helpers';
import { panelRequest } from '../panel/browser';

// Configuration is read from `env`, an ordinary object: a value planted on Object.prototype (by a
// pollution bug anywhere in the isolate) must never stand in for a variable the Worker lacks.
const EVIL = 'https://evil.example';
const PLANTED = {
  ADMIN_TOKEN: 'planted',
  RATE_LIMITS: 'off',
  CORS_ORIGINS: EVIL,
  PUBLIC_BASE_URL: EVIL,
  FAULT_INJECTION: 'on',
  STRANDED_AFTER_MS: '5',
  __fault: 'send',
};

/** Runs `run` with PLANTED on Object.prototype, and always takes it away again. */
async function withPlanted<T>(run: () => Promise<T>): Promise<T> {
  const prototype = Object.prototype as Record<string, unknown>;
  try {
    Object.assign(prototype, PLANTED);
    return await run();
  } finally {
    for (const name of Object.keys(PLANTED)) delete prototype[name];
  }
}

/** The test Worker's bindings without the variables PLANTED names, and with `extra`. */
function bindingsWithout(extra: Partial<typeof env> = {}): typeof env {
  const bindings: Record<string, unknown> = { ...env, ...extra };
  for (const name of Object.keys(PLANTED)) delete bindings[name];
  return bindings as unknown as typeof env;
}

const fetchWithout = async (request: Request, extra: Partial<typeof env> = {}): Promise<Response> =>
  worker.fetch(request, bindingsWithout(extra), createExecutionContext());

describe('configuration read from env', () => {
  it('leaves /admin off when only Object.prototype has an ADMIN_TOKEN', async () => {
    const res = await withPlanted(() =>
      fetchWithout(
        new Request(`${BASE}/admin/accounts`, {
          method: 'POST',
          headers: { Authorization: 'Bearer planted', 'Content-Type': 'application/json' },
          body: '{"name":"Ghost"}',
        }),
      ),
    );
    await expectProblem(res, 404, 'not_found');
  });

  it('keeps rate limits on when only Object.prototype says RATE_LIMITS=off', async () => {
    const { key } = await newAccount();
    const statuses = await withPlanted(async () => {
      const seen: number[] = [];
      for (let i = 0; i < 7; i++) {
        const request = new Request(`${BASE}/v1/users`, { headers: { Authorization: `Bearer ${key}` } });
        seen.push((await fetchWithout(request, { API_RATE_LIMITER: env.LOW_API_RATE_LIMITER })).status);
      }
      return seen;
    });
    expect(statuses).toContain(429);
  });

  it('allows no CORS origin and no panel origin that only Object.prototype names', async () => {
    const { preflight, signIn } = await withPlanted(async () => ({
      preflight: await fetchWithout(
        new Request(`${BASE}/v1/users`, {
          method: 'OPTIONS',
          headers: { Origin: EVIL, 'Access-Control-Request-Method': 'GET' },
        }),
      ),
      signIn: await fetchWithout(
        panelRequest('/panel/sign-in', { form: { api_key: 'crm_x' }, origin: EVIL }),
      ),
    }));
    expect(preflight.headers.get('Access-Control-Allow-Origin')).toBeNull();
    expect(signIn.status).toBe(403);
  });

  it('injects no fault and keeps the stranded window when only Object.prototype turns them on', async () => {
    await withPlanted(async () => {
      expect(injected({}, { nome: 'Ana' }, 'send')).toBe(false);
      expect(injected({ FAULT_INJECTION: 'on' }, { nome: 'Ana' }, 'send')).toBe(false);
      expect(strandedAfterMs({}, 60_000)).toBe(60_000);
    });
    expect(injected({ FAULT_INJECTION: 'on' }, { __fault: 'send' }, 'send')).toBe(true);
  });
});
