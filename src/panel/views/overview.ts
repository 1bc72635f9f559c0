import { html } from 'hono/html';
import type { Counts, EventStatus, Overview } from '../../webhooks/event-overview';
import type { Messages } from '../i18n';
import { eventErrorText } from '../problem-text';
import { type Page, when } from '../views';

// The webhook's overview: an inline SVG chart of its events per hour by status over 7 days (no
// library; presentation attributes only, as the CSP allows no style attribute), its text
// alternative (a summary in <desc> and the day totals as a table), the success rate and the last
// failure.

/** The statuses bottom to top in a bar, each with its colour (3:1 or more against white). */
const series: [EventStatus, string][] = [
  ['processed', '#067647'],
  ['test', '#b54708'],
  ['pending', '#475467'],
  ['failed', '#b42318'],
  ['rejected', '#6941c6'],
];

const label = (t: Messages, s: EventStatus) =>
  ({
    processed: t.ovProcessed,
    test: t.ovTest,
    pending: t.ovPending,
    failed: t.ovFailed,
    rejected: t.ovRejected,
  })[s];

const BAR = 4;
const TOP = 12;
const HEIGHT = 100;

const sum = (c: Counts) => series.reduce((n, [s]) => n + c[s], 0);

/** The bars of one hour, stacked from the baseline. */
function bars(c: Counts, i: number, max: number) {
  let y = TOP + HEIGHT;
  return series.map(([s, fill]) => {
    if (!c[s]) return '';
    const h = (c[s] / max) * HEIGHT;
    y -= h;
    return html`<rect x="${i * BAR}" y="${y.toFixed(2)}" width="${BAR - 1}" height="${h.toFixed(2)}" fill="${fill}"/>`;
  });
}

/** The sentence a screen reader gets for the chart: totals by status and the busiest hour. */
function summary(p: Page, o: Overview, peak: number) {
  const total = sum(o.totals);
  if (!total) return p.t.ovNoEvents;
  const parts = series.filter(([s]) => o.totals[s]).map(([s]) => `${label(p.t, s)}: ${o.totals[s]}`);
  return `${total} ${p.t.ovEventsIn7Days}: ${parts.join(', ')}. ${p.t.ovPeak}: ${peak}.`;
}

function chart(p: Page, name: string, o: Overview) {
  const peak = Math.max(0, ...o.hours.map(sum));
  const width = o.hours.length * BAR;
  const days = Array.from({ length: o.hours.length / 24 - 1 }, (_, d) => (d + 1) * 24 * BAR);
  return html`<figure class="chart">
<svg viewBox="0 0 ${width} ${TOP + HEIGHT + 2}" role="img" aria-labelledby="chart-title chart-desc" focusable="false">
<title id="chart-title">${p.t.ovChartTitle}: ${name}</title>
<desc id="chart-desc">${summary(p, o, peak)}</desc>
${days.map((x) => html`<line x1="${x}" y1="${TOP}" x2="${x}" y2="${TOP + HEIGHT}" stroke="#d0d5dd" stroke-width="1"/>`)}
<line x1="0" y1="${TOP + HEIGHT + 0.5}" x2="${width}" y2="${TOP + HEIGHT + 0.5}" stroke="#475467" stroke-width="1"/>
<text x="0" y="9" font-size="10" fill="#344054">${peak}</text>
${peak ? o.hours.map((c, i) => bars(c, i, peak)) : ''}
</svg>
<figcaption>${when(o.start, p)} – ${when(o.end, p)} · ${p.t.ovPerHour}</figcaption>
</figure>
<ul class="legend">${series.map(
    ([s, fill]) =>
      html`<li><svg viewBox="0 0 10 10" width="12" height="12" aria-hidden="true" focusable="false"><rect width="10" height="10" fill="${fill}"/></svg> ${label(p.t, s)}: ${o.totals[s]}</li>`,
  )}</ul>`;
}

/** The day totals: seven 24-hour slices, newest first, the text twin of the chart. */
function dayTable(p: Page, o: Overview) {
  const start = Date.parse(o.start);
  const days = Array.from({ length: o.hours.length / 24 }, (_, d) => {
    const totals = Object.fromEntries(
      series.map(([s]) => [s, o.hours.slice(d * 24, d * 24 + 24).reduce((n, c) => n + c[s], 0)]),
    ) as Counts;
    return { from: new Date(start + d * 24 * 3_600_000).toISOString(), totals };
  }).reverse();
  const head = series.map(([s]) => label(p.t, s));
  return html`<details><summary>${p.t.ovDayTotals}</summary>
<div class="scroll" tabindex="0" role="region" aria-label="${p.t.ovDayTotals}"><table>
<thead><tr><th scope="col">${p.t.ovFrom}</th>${head.map((h) => html`<th scope="col">${h}</th>`)}<th scope="col">${p.t.ovTotal}</th></tr></thead>
<tbody>${days.map(
    (d) =>
      html`<tr><td data-label="${p.t.ovFrom}">${when(d.from, p)}</td>${series.map(([s], i) => html`<td data-label="${head[i]}">${d.totals[s]}</td>`)}<td data-label="${p.t.ovTotal}">${sum(d.totals)}</td></tr>`,
  )}</tbody></table></div>
</details>`;
}

const percent = (p: Page, share: number) =>
  new Intl.NumberFormat(p.lang, { style: 'percent', maximumFractionDigits: 1 }).format(share);

function facts(p: Page, webhookId: number, o: Overview) {
  const rate =
    o.rate === null
      ? p.t.ovRateNone
      : // Rounded down, so 100% means every settled event was processed.
        `${percent(p, Math.floor(o.rate * 1000) / 1000)} (${o.totals.processed} ${p.t.ovOf} ${o.settled})`;
  const f = o.lastFailure;
  return html`<dl class="facts">
<dt>${p.t.ovRate}</dt><dd><span id="success-rate">${rate}</span><p class="hint">${p.t.ovRateHint}</p></dd>
<dt>${p.t.ovLastFailure}</dt><dd id="last-failure">${
    f
      ? html`${when(f.at, p)} · ${label(p.t, f.status)}${f.error ? html` · <span class="error-text">${eventErrorText(p, f.error)}</span>` : ''} · <a href="/panel/webhooks/${webhookId}/events/${f.id}">${p.t.ovOpenEvent} #${f.id}</a>`
      : p.t.ovNoFailure
  }</dd>
</dl>`;
}

/** The overview section of the webhook's page. */
export const overviewSection = (p: Page, webhook: { id: number; name: string }, o: Overview) =>
  html`<section class="card" aria-labelledby="overview">
<h2 id="overview">${p.t.ovTitle}</h2>
${chart(p, webhook.name, o)}
${dayTable(p, o)}
${facts(p, webhook.id, o)}
</section>`;
