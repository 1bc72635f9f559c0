import { html, raw } from 'hono/html';
import { zoneNames } from '../../core/zones';
import { langs } from '../i18n';
import { oauthText } from '../oauth-text';
import { zoneGroups } from '../zone-labels';
import { layout, type Page, when } from './layout';

const zoneOption = (zone: string, label: string, chosen: string) =>
  html`<option value="${zone}"${zone === chosen ? raw(' selected') : ''}>${label}</option>`;

/** Every zone of the runtime's list, grouped and named for people, `chosen` selected; `<id>-hint` describes it. */
const zoneSelect = (p: Page, id: string, name: string, chosen: string) =>
  html`<select id="${id}" name="${name}" class="wide" aria-describedby="${id}-hint">
${zoneGroups(p.t, zoneNames()).map(
  (g) =>
    html`<optgroup label="${g.label}">${g.options.map((o) => zoneOption(o.zone, o.label, chosen))}</optgroup>`,
)}
</select>`;

/** The account's zone as the page's key may read it: the zone, or `denied` (no `account:read`). */
export type AccountZone = { zone: string } | 'denied';

/** The account's own zone (for every date with no time), in a form of its own: a change for everyone. */
function accountForm(p: Page, account: AccountZone) {
  if (account === 'denied') return html`<p class="card narrow hint">${p.t.accountZoneDenied}</p>`;
  return html`<form method="post" action="/panel/settings/account" class="card narrow">
<label for="account-zone">${p.t.accountZone}</label>
${zoneSelect(p, 'account-zone', 'time_zone', account.zone)}
<p id="account-zone-hint" class="hint">${p.t.accountZoneHint}</p>
<button type="submit">${p.t.saveAccountZone}</button>
</form>`;
}

/**
 * The person's preferences: the language and the time zone of the panel's times, kept in cookies.
 * `next`, a panel path, is where the save goes back to.
 */
export function settingsPage(
  p: Page,
  next: string | undefined,
  flash?: { kind: 'ok' | 'error'; text: string },
  account?: AccountZone,
) {
  return layout(
    p,
    p.t.settingsTitle,
    html`<form method="post" action="/panel/settings" class="card narrow">
${next ? html`<input type="hidden" name="next" value="${next}">` : ''}
<label for="lang">${p.t.language}</label>
<select id="lang" name="lang" class="wide">${langs.map(
      (l) =>
        html`<option value="${l}" lang="${l}"${l === p.lang ? raw(' selected') : ''}>${l === 'en' ? 'English' : 'Português (Brasil)'}</option>`,
    )}</select>
<label for="zone">${p.t.timeZone}</label>
${zoneSelect(p, 'zone', 'zone', p.zone)}
<p id="zone-hint" class="hint">${p.t.timeZoneHint}</p>
<p>${p.t.zoneNow} ${when(new Date().toISOString(), p)}</p>
<button type="submit">${p.t.save}</button>
</form>
${account === undefined ? '' : accountForm(p, account)}
${p.signedIn ? html`<p class="card narrow"><a href="/panel/settings/connections">${oauthText[p.lang].connectionsLink}</a></p>` : ''}`,
    flash,
  );
}
