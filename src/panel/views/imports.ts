import { html } from 'hono/html';
import type { HtmlEscapedString } from 'hono/utils/html';
import { IMPORT_RESOURCES, type ImportResource, importFields } from '../../imports/fields';
import type { previewFile } from '../../imports/service';
import type { ImportRow } from '../../imports/store';
import { rowReason } from '../import-reasons';
import {
  actionWord,
  fieldWord,
  importStatusWord,
  importWords,
  modeWord,
  resourceWord,
} from '../import-words';
import { layout, type Page, when } from './layout';

// The import page: the file form, the preview (columns and their fields, the first rows), an
// import's progress, and the account's recent imports.

type Html = HtmlEscapedString | Promise<HtmlEscapedString>;
type Preview = Awaited<ReturnType<typeof previewFile>>;

const MODES = ['upsert', 'create', 'update'] as const;
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
const ACTIVE = new Set(['queued', 'running']);

function choices(p: Page, resource: string, mode: string) {
  const w = importWords[p.lang];
  return html`<p><label for="resource">${w.resource}</label><br><select id="resource" name="resource" class="wide">${IMPORT_RESOURCES.map(
    (r) => html`<option value="${r}"${r === resource ? ' selected' : ''}>${resourceWord(p.lang, r)}</option>`,
  )}</select></p>
<fieldset class="choices"><legend>${w.mode}</legend>${MODES.map(
    (m) =>
      html`<label><input type="radio" name="mode" value="${m}"${m === mode ? ' checked' : ''}> ${modeWord(p.lang, m)}</label>`,
  )}</fieldset>`;
}

/** The account's recent imports, newest first. */
function recent(p: Page, rows: ImportRow[]) {
  const w = importWords[p.lang];
  if (!rows.length) return html`<h2>${w.recent}</h2><p>${w.noImports}</p>`;
  return html`<h2>${w.recent}</h2><div class="scroll" tabindex="0" role="region" aria-label="${w.recent}"><table>
<thead><tr><th scope="col">${w.started}</th><th scope="col">${w.resource}</th><th scope="col">${w.status}</th><th scope="col">${w.rows}</th><th scope="col">${w.failed}</th></tr></thead>
<tbody>${rows.map(
    (
      r,
    ) => html`<tr><td data-label="${w.started}"><a href="/panel/imports/${r.id}">${when(iso(r.createdAt), p)}</a></td>
<td data-label="${w.resource}">${resourceWord(p.lang, r.resource)}</td>
<td data-label="${w.status}"><span class="badge">${importStatusWord(p.lang, r.status)}</span></td>
<td data-label="${w.rows}">${r.rows}</td><td data-label="${w.failed}">${r.failed}</td></tr>`,
  )}</tbody></table></div>`;
}

/** The file form and the recent imports; `canStart` false: the key only reads. */
export function importsPage(p: Page, rows: ImportRow[], canStart: boolean, error?: string) {
  const w = importWords[p.lang];
  const form = canStart
    ? html`<form method="post" action="/panel/imports/preview" enctype="multipart/form-data" class="card narrow">
<p>${w.intro}</p>
<p><label for="file">${w.file}</label><br><input type="file" id="file" name="file" accept=".csv,text/csv,text/plain" required aria-describedby="file-hint"><br><span class="hint" id="file-hint">${w.fileHint}</span></p>
${choices(p, 'companies', 'upsert')}
<button type="submit">${w.preview}</button>
</form>`
    : html`<p class="hint">${w.readOnly}</p>`;
  return layout(
    p,
    w.title,
    html`${form}${recent(p, rows)}`,
    error ? { kind: 'error', text: error } : undefined,
  );
}

/** Each column with a select of the resource's fields (or "ignored"). */
function mappingTable(p: Page, resource: ImportResource, columns: Preview['columns']) {
  const w = importWords[p.lang];
  const fields = Object.keys(importFields[resource]);
  return html`<h2>${w.columns}</h2><div class="scroll"><table class="mapping">
<thead><tr><th scope="col">${w.column}</th><th scope="col">${w.field}</th></tr></thead>
<tbody>${columns.map(
    (
      col,
      i,
    ) => html`<tr><td data-label="${w.column}"><label for="map-${i}">${col.header || `#${i + 1}`}</label></td>
<td data-label="${w.field}"><select id="map-${i}" name="map.${i}"><option value=""${col.field ? '' : ' selected'}>${w.ignored}</option>${fields.map(
      (f) => html`<option value="${f}"${f === col.field ? ' selected' : ''}>${fieldWord(p.lang, f)}</option>`,
    )}</select></td></tr>`,
  )}</tbody></table></div>`;
}

/** The dry run's first rows: each one's action, and a failed one's reasons in the page's language. */
function firstRows(p: Page, preview: Preview) {
  const w = importWords[p.lang];
  const { rows } = preview;
  if (!rows.length) return html`<h2>${w.firstRows}</h2><p>${w.noRows}</p>`;
  return html`<h2>${w.firstRows}</h2><p class="hint">${w.firstRowsHint}</p><div class="scroll" tabindex="0" role="region" aria-label="${w.firstRows}"><table>
<thead><tr><th scope="col">${w.line}</th><th scope="col">${w.action}</th><th scope="col">${w.reason}</th></tr></thead>
<tbody>${rows.map(
    (r) =>
      html`<tr><td data-label="${w.line}">${r.line}</td><td data-label="${w.action}"><span class="badge${r.action === 'fail' ? ' failed' : ''}">${actionWord(p.lang, r.action)}</span></td><td data-label="${w.reason}">${rowReason(p.lang, preview, r)}</td></tr>`,
  )}</tbody></table></div>`;
}

/** The preview: the mapping to edit, the first rows, and the buttons to look again or start. */
export function previewPage(p: Page, fileKey: string, preview: Preview) {
  const w = importWords[p.lang];
  const resource = preview.resource as ImportResource;
  return layout(
    p,
    w.title,
    html`<form method="post" action="/panel/imports" class="card">
<input type="hidden" name="file_key" value="${fileKey}">
${choices(p, resource, preview.mode)}
${mappingTable(p, resource, preview.columns)}
<div class="actions"><button type="submit">${w.start}</button>
<button type="submit" class="button secondary" formaction="/panel/imports/preview">${w.previewAgain}</button></div>
</form>
${firstRows(p, preview)}`,
  );
}

/** An import's status, progress bar and counts: the part the page's script refreshes. */
function progress(p: Page, row: ImportRow): Html {
  const w = importWords[p.lang];
  const counts = (['rows', 'created', 'updated', 'unchanged', 'failed'] as const).map(
    (k) => html`<dt>${w[k]}</dt><dd>${row[k]}</dd>`,
  );
  const done = row.status === 'completed' ? row.fileBytes : Math.min(row.offset, row.fileBytes);
  return html`<div id="import-progress" aria-live="polite"${ACTIVE.has(row.status) ? html` data-poll="/panel/imports/${row.id}"` : ''}>
<p><span class="badge">${importStatusWord(p.lang, row.status)}</span>${row.error ? html` <span class="error-text">${row.error}</span>` : ''}</p>
<p><label for="bar">${w.progress}</label><br><progress id="bar" max="${row.fileBytes}" value="${done}">${Math.round((100 * done) / Math.max(row.fileBytes, 1))}%</progress></p>
<dl class="facts">${counts}</dl>
</div>`;
}

/** One import: what it reads, its progress, cancel while it runs, its failed rows. */
export function importPage(p: Page, row: ImportRow, canCancel: boolean) {
  const w = importWords[p.lang];
  const active = ACTIVE.has(row.status);
  return layout(
    p,
    `${w.importOf} · ${resourceWord(p.lang, row.resource)}`,
    html`<p>${modeWord(p.lang, row.mode)} · ${when(iso(row.createdAt), p)}</p>
${progress(p, row)}
<div class="actions">${active ? html`<a class="button secondary" href="/panel/imports/${row.id}">${w.refresh}</a>` : ''}
${active && canCancel ? html`<form method="post" action="/panel/imports/${row.id}/cancel" class="inline"><button type="submit" class="danger">${w.cancel}</button></form>` : ''}
${row.failed ? html`<a class="button secondary" href="/panel/imports/${row.id}/errors.csv" download>${w.errors}</a>` : ''}</div>
<p><a href="/panel/imports">${w.recent}</a></p>`,
  );
}
