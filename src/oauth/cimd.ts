/**
 * Client ID metadata documents: a client's id is an https URL the authorization server fetches, so
 * an attacker chooses where this Worker connects. The library fetches with a 5 KB body limit and a
 * 10 s timeout, and the `global_fetch_strictly_public` flag keeps the fetch on the public internet;
 * this check refuses before any fetch what names no public https host: another scheme, a port,
 * credentials, an IP literal in a private, loopback, link-local or reserved range, `localhost` and
 * names that only resolve inside a network (docs/mcp.md, *OAuth*).
 */

import { publicHost } from '../core/public-host';

/** Whether `clientId` is a URL (a metadata document's) at all: an opaque DCR id is not. */
export const isUrlClientId = (clientId: string) => /^[a-z][a-z0-9+.-]*:/i.test(clientId);

/** Whether the library may fetch `clientId` as a metadata document: https, a public host, no port or credentials. */
export function fetchableClientId(clientId: string): boolean {
  if (clientId.length > 2000) return false;
  let url: URL;
  try {
    url = new URL(clientId);
  } catch {
    return false;
  }
  return (
    url.protocol === 'https:' && url.port === '' && !url.username && !url.password && publicHost(url.hostname)
  );
}
