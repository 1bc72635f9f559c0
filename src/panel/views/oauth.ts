import type { ConsentDescription, GrantSummary } from '@cloudflare/workers-oauth-provider';
import { html, raw } from 'hono/html';
import { type OAuthText, scopeText } from '../oauth-text';
import { layout, type Page, when } from './layout';

const iso = (ms: number) => new Date(ms).toISOString();

/** One scope's checkbox, `checked` when the client asked for it (or it reads, when it asked for none). */
const scopeBox = (p: Page, scope: string, checked: boolean) =>
  html`<label><input type="checkbox" name="scope" value="${scope}"${checked ? raw(' checked') : ''}> ${scopeText(scope, p.lang)} <code>${scope}</code></label>`;

/**
 * The consent form: who asks (every string of it the client's own, escaped), where the browser goes
 * back to, and the scopes the signed-in key may give; it posts back to the same URL with the
 * library's one-time handle, bound to this browser by its cookie.
 */
export function consentPage(
  p: Page,
  o: OAuthText,
  consent: ConsentDescription,
  form: { action: string; handle: string; offered: readonly string[]; checked: readonly string[] },
  error?: string,
) {
  return layout(
    p,
    o.consentTitle,
    html`<form method="post" action="${form.action}" class="card narrow">
<p><strong>${consent.clientName}</strong> ${o.consentAsks}</p>
<p class="hint">${consent.clientDomain ? html`${o.consentDomain} <strong>${consent.clientDomain}</strong>` : o.consentUnverified}</p>
<p>${o.consentRedirect} <strong>${consent.redirectHost}</strong>.</p>
${consent.redirectIsLoopback ? html`<p class="hint">${o.consentLoopback}</p>` : ''}
<fieldset class="choices">
<legend>${o.consentScopes}</legend>
${form.offered.map((scope) => scopeBox(p, scope, form.checked.includes(scope)))}
</fieldset>
<p class="hint">${o.consentScopesHint}</p>
${error ? html`<p class="error" role="alert">${error}</p>` : ''}
<input type="hidden" name="handle" value="${form.handle}">
<div class="actions">
<button type="submit" name="decision" value="approve">${o.approve}</button>
<button type="submit" name="decision" value="deny" class="secondary">${o.deny}</button>
</div>
</form>`,
  );
}

/** A connection as the settings show it: the grant and what the panel stored with it. */
export type Connection = Pick<GrantSummary, 'id' | 'scope' | 'createdAt' | 'expiresAt'> & {
  client: string;
  redirectHost: string;
};

const connectionRow = (p: Page, o: OAuthText, row: Connection) =>
  html`<tr><td>${row.client}<br><span class="hint">${row.redirectHost}</span></td>
<td>${row.scope.map((scope) => html`<code>${scope}</code> `)}</td>
<td>${when(iso(row.createdAt * 1000), p)}</td>
<td>${row.expiresAt ? when(iso(row.expiresAt * 1000), p) : p.t.none}</td>
<td><form method="post" action="/panel/settings/connections/${row.id}/revoke" class="inline"><button type="submit" class="danger">${o.revoke}</button></form></td></tr>`;

/** The account's OAuth connections, each with a button that ends it. */
export function connectionsPage(p: Page, o: OAuthText, rows: readonly Connection[], revoked: boolean) {
  const table = html`<div class="scroll"><table>
<thead><tr><th>${o.connectionsClient}</th><th>${o.connectionsScopes}</th><th>${o.connectionsSince}</th><th>${o.connectionsUntil}</th><th></th></tr></thead>
<tbody>${rows.map((row) => connectionRow(p, o, row))}</tbody>
</table></div>`;
  return layout(
    p,
    o.connectionsTitle,
    rows.length ? table : html`<p>${o.connectionsNone}</p>`,
    revoked ? { kind: 'ok', text: o.revoked } : undefined,
  );
}
