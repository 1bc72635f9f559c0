import { publicHost } from './public-host';

/**
 * The one policy for the URLs outbound webhooks post to, checked when an endpoint is saved and
 * again before every send (a rule that tightened since the save still holds): https to a public
 * name, no IP literal of any form, no credentials, not the service's own host. The URL parser has
 * already turned decimal, octal and hex IPv4 forms (2130706433, 0177.1, 0x7f.1) into dotted quads.
 * What a name resolves to is past a Worker's reach (it cannot resolve): the
 * `global_fetch_strictly_public` flag keeps the fetch itself on the public internet.
 */

export type UrlRefusal = { code: string; message: string };

export type OutboundPolicy = {
  /** `OUTBOUND_ALLOW_HTTP_LOCALHOST = "true"` from `.dev.vars`: http://localhost:<port> and http://127.0.0.1:<port>. */
  allowLocalHttp: boolean;
  /** The service's own hosts (lower case), which an endpoint may not name. */
  ownHosts: readonly string[];
};

export const MAX_URL = 2048;

const IPV4 = /^\d{1,3}(\.\d{1,3}){3}$/;
const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1']);

const refusal = (code: string, message: string): UrlRefusal => ({ code, message });

function parsed(raw: string): URL | undefined {
  if (raw.length > MAX_URL) return undefined;
  try {
    return new URL(raw);
  } catch {
    return undefined;
  }
}

/** A local receiver in development: only with the flag, only plain http with a port. */
const localReceiver = (url: URL, policy: OutboundPolicy) =>
  policy.allowLocalHttp && url.protocol === 'http:' && url.port !== '' && LOCAL_HOSTS.has(url.hostname);

/** Why the service will not post to `raw`, or undefined when it may. */
export function outboundUrlRefusal(raw: string, policy: OutboundPolicy): UrlRefusal | undefined {
  const url = parsed(raw);
  if (!url) return refusal('invalid_url', `Expected an absolute https URL of at most ${MAX_URL} characters.`);
  if (url.username || url.password) {
    return refusal('url_credentials', 'The URL may not carry a user name or password; use the signature.');
  }
  if (localReceiver(url, policy)) return undefined;
  if (url.protocol !== 'https:') return refusal('https_required', 'Only https URLs receive webhooks.');
  const host = url.hostname.replace(/\.$/, '');
  if (host.startsWith('[') || IPV4.test(host)) {
    return refusal('ip_literal', 'The URL must name a host, not an IP address.');
  }
  if (!publicHost(host)) {
    return refusal('host_not_public', `${host} is not a public host (localhost, .local, .internal…).`);
  }
  if (policy.ownHosts.some((own) => host === own || host.endsWith(`.${own}`))) {
    return refusal('own_host', 'An endpoint may not post to this service itself.');
  }
  return undefined;
}
