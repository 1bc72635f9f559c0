/**
 * CSV as spreadsheets read it (RFC 4180), and as pt-BR Excel reads it (`;`, a UTF-8 BOM, dates as
 * DD/MM/YYYY, decimal commas). A text cell that starts with `=`, `+`, `-`, `@`, a tab or a carriage
 * return is prefixed with `'`, as OWASP's "CSV Injection" says, so no spreadsheet runs it as a
 * formula; numbers the service writes itself are not text and stay as they are.
 */
export type CsvFormat = 'csv' | 'excel';

export type Cell = string | number | boolean | null;

// Also a cell already escaped by hand (`'=x`): one more `'`, so the import's one `'` taken off
// gives it back as it was.
const FORMULA = /^'*[=+\-@\t\r]/;

export const delimiterOf = (format: CsvFormat): string => (format === 'excel' ? ';' : ',');

/** The bytes a file starts with: Excel reads UTF-8 only after a BOM. */
export const preamble = (format: CsvFormat): string => (format === 'excel' ? '\uFEFF' : '');

function text(cell: Cell, format: CsvFormat): string {
  if (cell === null) return '';
  if (typeof cell === 'number') return format === 'excel' ? String(cell).replace('.', ',') : String(cell);
  if (typeof cell === 'boolean') return cell ? 'true' : 'false';
  return FORMULA.test(cell) ? `'${cell}` : cell;
}

/** A cell the export escaped against CSV injection (`'=`, `'+5511…`, `''=x`) back as it was. */
export const unescapedCell = (cell: string): string => (/^'+[=+\-@\t\r]/.test(cell) ? cell.slice(1) : cell);

/** One cell, quoted when it holds the delimiter, a quote, a line break or edge spaces. */
export function csvCell(cell: Cell, format: CsvFormat): string {
  const value = text(cell, format);
  const delimiter = delimiterOf(format);
  const quote = value.includes(delimiter) || /["\r\n]/.test(value) || value !== value.trim();
  return quote ? `"${value.replaceAll('"', '""')}"` : value;
}

/** One line, CRLF-terminated as RFC 4180 says. */
export const csvLine = (cells: readonly Cell[], format: CsvFormat): string =>
  `${cells.map((cell) => csvCell(cell, format)).join(delimiterOf(format))}\r\n`;

const pad = (n: number) => String(n).padStart(2, '0');

/** An ISO time as Excel pt-BR reads it: DD/MM/YYYY HH:MM:SS (UTC), or DD/MM/YYYY at midnight UTC. */
export function excelTime(iso: string): string {
  const d = new Date(iso);
  const date = `${pad(d.getUTCDate())}/${pad(d.getUTCMonth() + 1)}/${d.getUTCFullYear()}`;
  const time = `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
  return time === '00:00:00' ? date : `${date} ${time}`;
}
