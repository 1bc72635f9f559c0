import { html } from 'hono/html';
import type { Counts, EventStatus, Overview } from '../../webhooks/log/event-overview';
import type { Messages } from '../i18n';
import { detailText, failureText } from '../said-words';
import { type Page, when } from './layout';
import { fourHours, localDays, type Span, totalOf } from './overview-days';

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

/** The chart at desktop width, one bar per hour; at phone width, one per local 4-hour block. */
const WIDE = { bar: 4, top: 12, height: 100, font: 10, id: 'chart' };
const NARROW = { bar: 8, top: 14, height: 150, font: 11, id: 'chart-4h' };
type Shape = typeof WIDE;
/** The band under the baseline the day labels sit in. */
const AXIS = 16;

const sum = (c: Counts) => series.reduce((n, [s]) => n + c[s], 0);

/** The bars of one slot, stacked from the baseline. */
function bars(c: Counts, i: number, max: number, k: Shape) {
  let y = k.top + k.height;
  return series.map(([s, fill]) => {
    if (!c[s]) return '';
    const h = (c[s] / max) * k.height;
    y -= h;
    return html`<rect x="${i * k.bar}" y="${y.toFixed(2)}" width="${k.bar - (k === WIDE ? 1 : 2)}" height="${h.toFixed(2)}" fill="${fill}"/>`;
  });
}

/** The sentence a screen reader gets for the chart: totals by status and the busiest hour. */
function summary(p: Page, o: Overview, peak: number) {
  const total = sum(o.totals);
  if (!total) return p.t.ovNoEvents;
  const parts = series.filter(([s]) => o.totals[s]).map(([s]) => `${label(p.t, s)}: ${o.totals[s]}`);
  return `${total} ${p.t.ovEventsIn7Days}: ${parts.join(', ')}. ${p.t.ovPeak}: ${peak}.`;
}

/** A day's short name in the page's language and the person's zone ("ter., 24/11", "Tue, 11/24"). */
const dayNamer = (p: Page, weekday: boolean) =>
  new Intl.DateTimeFormat(p.lang, {
    timeZone: p.zone,
    ...(weekday ? { weekday: 'short' } : {}),
    day: '2-digit',
    month: '2-digit',
  });

/**
 * One SVG of the chart: `slots` are its bars (each a span of hours), a line and a label where a
 * local day starts (labels only where the day has room for one).
 */
function svg(p: Page, name: string, o: Overview, slots: Span[], k: Shape) {
  const start = Date.parse(o.start);
  const counts = slots.map((s) => totalOf(o.hours, s.first, s.count));
  const peak = Math.max(0, ...counts.map(sum));
  const width = slots.length * k.bar;
  const namer = dayNamer(p, k === WIDE);
  const days = slots.flatMap((s, i) => (i === 0 || s.date !== slots[i - 1]?.date ? [{ i, s }] : []));
  const room = (j: number) => ((days[j + 1]?.i ?? slots.length) - (days[j]?.i ?? 0)) * k.bar;
  const base = k.top + k.height;
  const wide = k === WIDE;
  return html`<svg class="${wide ? 'wide' : 'narrow'}" viewBox="0 0 ${width} ${base + AXIS}" role="img" aria-labelledby="${k.id}-title ${k.id}-desc" focusable="false">
<title id="${k.id}-title">${wide ? p.t.ovChartTitle : p.t.ovChartTitle4h}: ${name}</title>
<desc id="${k.id}-desc">${summary(p, o, Math.max(0, ...o.hours.map(sum)))}</desc>
${days.map(({ i }) => (i ? html`<line x1="${i * k.bar}" y1="${k.top}" x2="${i * k.bar}" y2="${base + AXIS}" stroke="#d0d5dd" stroke-width="1"/>` : ''))}
<line x1="0" y1="${base + 0.5}" x2="${width}" y2="${base + 0.5}" stroke="#475467" stroke-width="1"/>
<text x="0" y="${k.font - 1}" font-size="${k.font}" fill="#344054">${peak}</text>
${days.map(({ i, s }, j) => (room(j) >= k.font * (wide ? 5.5 : 3) ? html`<text x="${i * k.bar + 2}" y="${base + AXIS - 3}" font-size="${k.font}" fill="#344054">${namer.format(start + s.first * 3_600_000)}</text>` : ''))}
${peak ? counts.map((c, i) => bars(c, i, peak, k)) : ''}
</svg>`;
}

function chart(p: Page, name: string, o: Overview) {
  const start = Date.parse(o.start);
  const hours = o.hours.map((_, i) => ({ first: i, count: 1 }));
  const days = localDays(start, o.hours.length, p.zone);
  // Each hour's local date, for the wide chart's day lines and labels.
  const dated = hours.map((h) => ({
    ...h,
    date: days.find((d) => h.first < d.first + d.count)?.date ?? '',
    hour: 0,
  }));
  return html`<figure class="chart">
${svg(p, name, o, dated, WIDE)}
${svg(p, name, o, fourHours(start, o.hours.length, p.zone), NARROW)}
<figcaption>${when(o.start, p)} – ${when(o.end, p)} · <span class="wide">${p.t.ovPerHour}</span><span class="narrow">${p.t.ovPer4Hours}</span></figcaption>
</figure>
<ul class="legend">${series.map(
    ([s, fill]) =>
      html`<li><svg viewBox="0 0 10 10" width="12" height="12" aria-hidden="true" focusable="false"><rect width="10" height="10" fill="${fill}"/></svg> ${label(p.t, s)}: ${o.totals[s]}</li>`,
  )}</ul>`;
}

/** The day totals: the person's local days (from their midnight), newest first, the chart's text twin. */
function dayTable(p: Page, o: Overview) {
  const start = Date.parse(o.start);
  const days = localDays(start, o.hours.length, p.zone)
    .map((d) => ({
      from: new Date(start + d.first * 3_600_000).toISOString(),
      totals: totalOf(o.hours, d.first, d.count),
    }))
    .reverse();
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
      ? html`${when(f.at, p)} · ${label(p.t, f.status)}${f.error ? html` · <span class="error-text">${f.status === 'failed' ? failureText(p, { error: f.error, error_code: f.code, error_params: f.params }) : detailText(p, f.code, f.error, f.params)}</span>` : ''} · <a href="/panel/webhooks/${webhookId}/events/${f.id}">${p.t.ovOpenEvent} #${f.id}</a>`
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
