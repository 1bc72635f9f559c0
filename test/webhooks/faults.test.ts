import { expect, it } from 'vitest';
import { injected } from '../../src/webhooks/rules/faults';
import wranglerToml from '../../wrangler.toml?raw';

it('fault injection needs FAULT_INJECTION=on, which wrangler.toml (what deploys) never sets', () => {
  expect(wranglerToml).not.toMatch(/FAULT_INJECTION|STRANDED_AFTER_MS/);
  const asked = { __fault: 'consumer' };
  expect(injected({}, asked, 'consumer')).toBe(false);
  expect(injected({ FAULT_INJECTION: 'yes' }, asked, 'consumer')).toBe(false);
  expect(injected({ FAULT_INJECTION: 'on' }, asked, 'consumer')).toBe(true);
  expect(injected({ FAULT_INJECTION: 'on' }, asked, 'send')).toBe(false);
  expect(injected({ FAULT_INJECTION: 'on' }, { nome: 'x' }, 'consumer')).toBe(false);
});
