import { describe, expect, it } from 'vitest';
import {
  ALL_SCOPES,
  allows,
  covers,
  grantingScopes,
  normalScopes,
  scopeOfRoute,
  writeScopes,
} from '../../src/core/scopes';

describe('scopes', () => {
  it('a scope is granted by itself and its three wildcard forms, and by full access', () => {
    expect(grantingScopes('companies:read').sort()).toEqual([
      '*:*',
      '*:read',
      'companies:*',
      'companies:read',
    ]);
    expect(allows(['tasks:*'], 'tasks:delete')).toBe(true);
    expect(allows(['*:read'], 'api_keys:read')).toBe(true);
    expect(allows(['*:read'], 'tasks:update')).toBe(false);
    expect(allows(['companies:read'], 'contacts:read')).toBe(false);
    expect(allows([], 'users:read')).toBe(false);
    expect(allows(null, 'users:delete')).toBe(true);
    expect(allows([], null)).toBe(true);
  });

  it('covers compares what the scopes stand for, wildcards expanded', () => {
    const reads = ['users', 'companies', 'contacts', 'deals', 'tasks', 'webhooks', 'api_keys'].map(
      (r) => `${r}:read`,
    );
    expect(covers(['*:read'], reads)).toBe(true);
    expect(covers(reads.slice(1), reads)).toBe(false);
    expect(covers(['tasks:*'], ['tasks:read', 'tasks:delete'])).toBe(true);
    expect(covers(['*:*'], null)).toBe(true);
    expect(covers(null, ['*:*'])).toBe(true);
    expect(covers(['*:read'], null)).toBe(false);
  });

  it('covers a wildcard only with a wildcard at least as wide: it grants resources added later', () => {
    const reads = ['users', 'companies', 'contacts', 'deals', 'tasks', 'webhooks', 'api_keys'].map(
      (r) => `${r}:read`,
    );
    expect(covers(reads, ['*:read'])).toBe(false);
    expect(covers(['*:read', '*:insert', '*:update', '*:delete'], null)).toBe(false);
    expect(covers(['*:read', '*:insert', '*:update', '*:delete'], ['*:*'])).toBe(false);
    expect(covers(['tasks:read', 'tasks:insert', 'tasks:update', 'tasks:delete'], ['tasks:*'])).toBe(false);
    expect(covers(['*:*'], ['tasks:*', '*:read'])).toBe(true);
    expect(covers(['tasks:*'], ['tasks:*'])).toBe(true);
    expect(covers(['*:read'], ['*:read', 'tasks:read'])).toBe(true);
  });

  it('every scope is resource-or-* : operation-or-*, in one stable order', () => {
    expect(ALL_SCOPES).toHaveLength(50);
    expect(normalScopes(['tasks:read', '*:read', 'tasks:read'])).toEqual(['*:read', 'tasks:read']);
  });

  it('a route gets its scope from its path and method; an unknown resource gets none', () => {
    expect(scopeOfRoute('GET', '/v1/companies')).toBe('companies:read');
    expect(scopeOfRoute('HEAD', '/v1/companies/7')).toBe('companies:read');
    expect(scopeOfRoute('POST', '/v1/companies/7/restore')).toBe('companies:delete');
    expect(scopeOfRoute('POST', '/v1/inbound-webhooks/{id}/events/{event_id}/replay')).toBe(
      'webhooks:update',
    );
    expect(scopeOfRoute('DELETE', '/v1/inbound-webhooks/3')).toBe('webhooks:delete');
    expect(scopeOfRoute('GET', '/v1/task-categories')).toBe('tasks:read');
    expect(scopeOfRoute('POST', '/v1/api-keys')).toBe('api_keys:insert');
    expect(scopeOfRoute('GET', '/v1/me')).toBeNull();
    for (const path of [
      '/v1/leads',
      '/v1/__proto__',
      '/v1/constructor',
      '/v1',
      '/hooks/abc',
      '/admin/accounts',
    ]) {
      expect(scopeOfRoute('GET', path), path).toBeUndefined();
    }
    expect(scopeOfRoute('PATCH', '/v1/companies/1')).toBeUndefined();
  });
});

describe('writeScopes', () => {
  it('is :insert to create, :update to update, both to upsert, each once', () => {
    expect(writeScopes('deals', ['create'])).toEqual(['deals:insert']);
    expect(writeScopes('deals', ['update', 'update'])).toEqual(['deals:update']);
    expect(writeScopes('tasks', ['upsert'])).toEqual(['tasks:insert', 'tasks:update']);
    expect(writeScopes('tasks', ['create', 'update'])).toEqual(['tasks:insert', 'tasks:update']);
    expect(writeScopes('users', [])).toEqual([]);
  });
});
