/**
 * Whether a host is on the public internet, as far as its name tells: the one check of every URL
 * the service itself connects to that a client chose (OAuth client metadata documents,
 * src/oauth/cimd.ts; outbound webhook endpoints, src/core/outbound-url.ts). A name that resolves to
 * a private address is the `global_fetch_strictly_public` flag's to stop: a Worker cannot resolve.
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
  // IPv6 literals: none is let through; a service the CRM calls lives at a name.
  if (hostname.startsWith('[')) return false;
  const v4 = v4Number(hostname);
  if (v4 !== undefined) return !privateV4(v4);
  // The URL parser has already turned 0x7f.1 and 2130706433 into dotted quads; a name needs a dot.
  return hostname.includes('.') && !INTERNAL_NAMES.test(hostname.replace(/\.$/, ''));
}
