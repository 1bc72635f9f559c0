import { html, raw } from 'hono/html';
import { zoneNames } from '../../core/zones';
import { langs } from '../i18n';
import { layout, type Page, when } from '../views';

/** Brazil's zones, offered first: most of the panel's people are there. */
const BRAZIL = [
  'America/Sao_Paulo',
  'America/Manaus',
  'America/Cuiaba',
  'America/Porto_Velho',
  'America/Rio_Branco',
  'America/Belem',
  'America/Fortaleza',
  'America/Recife',
  'America/Bahia',
  'America/Noronha',
];

const zoneOption = (zone: string, chosen: string) =>
  html`<option value="${zone}"${zone === chosen ? raw(' selected') : ''}>${zone.replaceAll('_', ' ')}</option>`;

/**
 * The person's preferences: the language and the time zone of the panel's times, kept in cookies.
 * `next`, a panel path, is where the save goes back to.
 */
export function settingsPage(
  p: Page,
  next: string | undefined,
  flash?: { kind: 'ok' | 'error'; text: string },
) {
  const all = zoneNames();
  const brazil = BRAZIL.filter((z) => all.includes(z));
  const rest = all.filter((z) => !brazil.includes(z));
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
<select id="zone" name="zone" class="wide" aria-describedby="zone-hint">
<optgroup label="${p.t.zonesBrazil}">${brazil.map((z) => zoneOption(z, p.zone))}</optgroup>
<optgroup label="${p.t.zonesAll}">${rest.map((z) => zoneOption(z, p.zone))}</optgroup>
</select>
<p id="zone-hint" class="hint">${p.t.timeZoneHint}</p>
<p>${p.t.zoneNow} ${when(new Date().toISOString(), p)}</p>
<button type="submit">${p.t.save}</button>
</form>`,
    flash,
  );
}
