/**
 * Client ID metadata documents: a client's id is an https URL the authorization server fetches, so
 * an attacker chooses where this Worker connects. The library fetches with a 5 KB body limit and a
 * 10 s timeout, and the `global_fetch_strictly_public` flag keeps the fetch on the public internet;
 * this check refuses before any fetch what names no public https host: another scheme, a port,
 * credentials, an IP literal in a private, loopback, link-local or reserved range, `localhost` and
 * names that only resolve inside a network (docs/mcp.md, *OAuth*).
 */

const INTERNAL_NAMES = /(^|\.)(localhost|local|internal|intranet|lan|home|corp|localdomain|home\.arpa)$/;

/** IPv4 ranges that are not the public internet: RFC 1918, loopback, link-local, CGNAT, reserved. */
const PRIVATE_V4: ReadonlyArray<readonly [number, number]> = [
  [0x00000000, 8],
  [0x0a000000, 8],
  [0x64400000, 10],
  [0x7f000000, 8],
  [0xa9fe0000, 16],
  [0xac100000, 12],
  [0xc0000000, 24],
  [0xc0a80000, 16],
  [0xc6120000, 15],
  [0xe0000000, 3],
];

function v4Number(host: string): number | undefined {
  const parts = host.split('.');
  if (parts.length !== 4 || !parts.every((part) => /^\d{1,3}$/.test(part) && Number(part) < 256))
    return undefined;
  return parts.reduce((sum, part) => sum * 256 + Number(part), 0);
}

const privateV4 = (ip: number) =>
  PRIVATE_V4.some(
    ([base, bits]) => Math.floor(ip / 2 ** (32 - bits)) === Math.floor(base / 2 ** (32 - bits)),
  );

/** Whether `hostname` (as the URL parser gives it: lower case, IPv6 in brackets) is a public host. */
export function publicHost(hostname: string): boolean {
  // IPv6 literals: none is let through; a client's metadata lives at a name.
  if (hostname.startsWith('[')) return false;
  const v4 = v4Number(hostname);
  if (v4 !== undefined) return !privateV4(v4);
  // The URL parser has already turned 0x7f.1 and 2130706433 into dotted quads; a name needs a dot.
  return hostname.includes('.') && !INTERNAL_NAMES.test(hostname.replace(/\.$/, ''));
}

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
