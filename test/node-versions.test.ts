import { describe, expect, it } from 'vitest';
import nvmrc from '../.nvmrc?raw';
import packageJson from '../package.json?raw';

const pkg = JSON.parse(packageJson);
const major = (version: string): number => Number(/\d+/.exec(version)?.[0]);

describe('Node versions', () => {
  it('the scripts run on the pinned Node, .nvmrc names its major, engines lets Node 20 install', () => {
    const pinned = pkg.devDependencies.node;
    expect(pinned).toMatch(/^\d+\.\d+\.\d+$/);
    // Current wrangler and vitest need 22 or newer.
    expect(major(pinned)).toBeGreaterThanOrEqual(22);
    expect(nvmrc.trim()).toBe(String(major(pinned)));
    // The system Node only runs npm; 20 must install and test the project.
    expect(pkg.engines).toEqual({ node: '>=20' });
  });
});
