import { invalid } from '../core/errors';
import { type OutboundPolicy, outboundUrlRefusal } from '../core/outbound-url';
import { ownVar } from '../core/own-vars';
import type { Bindings } from '../env';

/**
 * The URL policy as this Worker runs it. `OUTBOUND_ALLOW_HTTP_LOCALHOST` comes from `.dev.vars`
 * alone (wrangler.toml's [vars] never sets it); the service's own hosts are PUBLIC_BASE_URL's and,
 * on a request, the one it came in on.
 */
export function outboundPolicy(env: Bindings, requestUrl?: string): OutboundPolicy {
  const hosts = [ownVar(env, 'PUBLIC_BASE_URL'), requestUrl]
    .filter((url): url is string => !!url)
    .map((url) => new URL(url).hostname.toLowerCase());
  return { allowLocalHttp: ownVar(env, 'OUTBOUND_ALLOW_HTTP_LOCALHOST') === 'true', ownHosts: hosts };
}

/** At save: a 422 on `url` when the policy refuses it. */
export function assertOutboundUrl(url: string, policy: OutboundPolicy): void {
  const refused = outboundUrlRefusal(url, policy);
  if (refused) throw invalid([{ path: 'url', ...refused }]);
}
