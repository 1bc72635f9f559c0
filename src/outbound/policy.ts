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

/**
 * How much the retry schedule is shortened: `OUTBOUND_RETRY_SCALE` (a number above 0 and at most
 * 1, e.g. "0.002" makes 5 min 0.6 s) from `.dev.vars` or `--var`, honoured only where
 * `OUTBOUND_ALLOW_HTTP_LOCALHOST` is "true" too (a local run; production has neither), so a drill
 * sees every retry of the Svix schedule within minutes. 1 (the real schedule) otherwise.
 */
export function retryScale(env: Bindings): number {
  if (ownVar(env, 'OUTBOUND_ALLOW_HTTP_LOCALHOST') !== 'true') return 1;
  const scale = Number(ownVar(env, 'OUTBOUND_RETRY_SCALE'));
  return scale > 0 && scale <= 1 ? scale : 1;
}

/** At save: a 422 on `url` when the policy refuses it. */
export function assertOutboundUrl(url: string, policy: OutboundPolicy): void {
  const refused = outboundUrlRefusal(url, policy);
  if (refused) throw invalid([{ path: 'url', ...refused }]);
}
