import type { Scope } from '../core/scopes';

/**
 * What an assistant may be granted over OAuth: the scopes the MCP tools need (src/mcp/tools.ts), no
 * delete (no tool deletes), no API keys and no account settings. The consent page offers those of
 * them the signed-in key holds.
 */
export const MCP_SCOPES: readonly Scope[] = [
  'companies:read',
  'contacts:read',
  'deals:read',
  'tasks:read',
  'users:read',
  'webhooks:read',
  'events:read',
  'companies:insert',
  'contacts:insert',
  'deals:insert',
  'tasks:insert',
  'companies:update',
  'contacts:update',
  'deals:update',
  'tasks:update',
];

export const isMcpScope = (value: string): value is Scope =>
  (MCP_SCOPES as readonly string[]).includes(value);
