/**
 * What an import's columns mean: each resource's fields, the pt-BR and English labels a header
 * is matched by, and how a cell becomes a batch item's value (dates DD/MM/YYYY, numbers 1.234,56,
 * relations by natural key: the columns the export writes).
 */
import { BARE } from '../core/cnpj';
import { unescapedCell } from '../core/csv';
import { foldText } from '../core/text';

export const IMPORT_RESOURCES = ['companies', 'contacts', 'deals', 'tasks'] as const;
export type ImportResource = (typeof IMPORT_RESOURCES)[number];

type Kind = 'text' | 'number' | 'date' | 'boolean' | `ref:${string}.${string}`;
type Field = { kind: Kind; labels: string[] };

const text = (...labels: string[]): Field => ({ kind: 'text', labels });
const ref = (relation: string, key: string, ...labels: string[]): Field => ({
  kind: `ref:${relation}.${key}`,
  labels,
});
const externalId = text('ID externo', 'Código', 'Codigo', 'External ID', 'ID');
const owner = ref('owner', 'email', 'Responsável', 'E-mail do responsável', 'Owner', 'Owner email');

/** Each resource's importable fields, in the order a header's labels are tried. */
export const importFields: Record<ImportResource, Record<string, Field>> = {
  companies: {
    id: text(),
    name: text('Razão social', 'Nome fantasia', 'Nome', 'Empresa', 'Company', 'Company name', 'Name'),
    cnpj: text('CNPJ'),
    segment: text('Segmento', 'Ramo', 'Segment', 'Industry'),
    observations: text('Observações', 'Obs', 'Notes', 'Observations'),
    external_id: externalId,
    owner_email: owner,
  },
  contacts: {
    id: text(),
    name: text('Nome', 'Nome completo', 'Contato', 'Name', 'Full name', 'Contact'),
    email: text('E-mail', 'Email', 'Correio eletrônico'),
    phone: text('Telefone', 'Celular', 'WhatsApp', 'Fone', 'Phone', 'Mobile'),
    external_id: externalId,
    company_cnpj: ref('company', 'cnpj', 'CNPJ', 'CNPJ da empresa', 'Company CNPJ'),
    owner_email: owner,
  },
  deals: {
    id: text(),
    name: text('Negócio', 'Oportunidade', 'Título', 'Nome', 'Deal', 'Name', 'Title'),
    value: { kind: 'number', labels: ['Valor', 'Value', 'Amount'] },
    status: text('Situação', 'Status', 'Estágio', 'Stage'),
    external_id: externalId,
    company_cnpj: ref('company', 'cnpj', 'CNPJ', 'CNPJ da empresa', 'Company CNPJ'),
    contact_email: ref('contact', 'email', 'E-mail do contato', 'E-mail', 'Contact email', 'Email'),
    owner_email: owner,
  },
  tasks: {
    id: text(),
    name: text('Tarefa', 'Título', 'Assunto', 'Nome', 'Task', 'Title', 'Name'),
    description: text('Descrição', 'Description'),
    due_date: { kind: 'date', labels: ['Data de vencimento', 'Vencimento', 'Prazo', 'Due date', 'Due'] },
    category: text('Categoria', 'Tipo', 'Category', 'Type'),
    is_completed: { kind: 'boolean', labels: ['Concluída', 'Concluida', 'Completed', 'Done'] },
    external_id: externalId,
    deal_external_id: ref('deal', 'external_id', 'Negócio (ID externo)', 'Deal external ID'),
    owner_email: owner,
  },
};

const fold = (s: string) =>
  foldText(s)
    .replace(/[\s_\-–.()]+/g, ' ')
    .trim();

/**
 * The field each header cell maps to (null: ignored): `mapping` first (header → field, or null to
 * ignore), then the field's own name, then its labels; a field takes the first column that names it.
 */
export function mapHeader(
  resource: ImportResource,
  header: readonly string[],
  mapping: Readonly<Record<string, string | null>> = {},
): (string | null)[] {
  const fields = importFields[resource];
  const taken = new Set<string>();
  const pick = (field: string | null | undefined) => {
    if (!field || taken.has(field) || !Object.hasOwn(fields, field)) return null;
    taken.add(field);
    return field;
  };
  const first = header.map((cell) => (Object.hasOwn(mapping, cell) ? pick(mapping[cell]) : undefined));
  return header.map((cell, i) => {
    if (first[i] !== undefined) return first[i] ?? null;
    const folded = fold(cell);
    const byName = Object.keys(fields).find((f) => fold(f) === folded && !taken.has(f));
    if (byName) return pick(byName);
    const byLabel = Object.entries(fields).find(
      ([f, { labels }]) => !taken.has(f) && labels.some((l) => fold(l) === folded),
    );
    return pick(byLabel?.[0]);
  });
}

/** `1.234,56`, `1234.56`, `R$ 1.234`: a number; undefined when it is none. */
export function brNumber(cell: string): number | undefined {
  const bare = cell.replace(/R\$|\s/g, '');
  const normal = bare.includes(',') ? bare.replaceAll('.', '').replace(',', '.') : bare;
  if (!/^-?\d+(\.\d+)?$/.test(normal)) return undefined;
  return Number(normal);
}

/**
 * `DD/MM/YYYY` (optionally with `HH:MM[:SS]`) as ISO in Brasília time (UTC−3, no daylight saving
 * since 2019), midnight without a time; anything else as it is (ISO goes through).
 */
export function brDate(cell: string): string {
  const m = /^(\d{1,2})\/(\d{1,2})\/(\d{4})(?:\s+(\d{1,2}):(\d{2})(?::(\d{2}))?)?$/.exec(cell);
  if (!m) return cell;
  const [, d, mo, y, h, mi, s] = m;
  const date = `${y}-${mo?.padStart(2, '0')}-${d?.padStart(2, '0')}`;
  return `${date}T${h ? `${h.padStart(2, '0')}:${mi}:${s ?? '00'}` : '00:00:00'}-03:00`;
}

/**
 * A CNPJ in whatever mask a spreadsheet holds (`12345678/0001-95`, `12.345.678 0001 95`) as the
 * bare form the batch reads; the API itself takes it bare or in the full mask only.
 */
const cnpjCell = (cell: string) => {
  const bare = cell.replace(/[\s./-]/g, '');
  return BARE.test(bare) ? bare : cell;
};

const TRUE = new Set(['sim', 's', 'true', 'yes', 'y', '1', 'x']);
const FALSE = new Set(['nao', 'não', 'n', 'false', 'no', '0']);

function value(kind: Kind, cell: string): unknown {
  if (kind === 'number') return brNumber(cell) ?? cell;
  if (kind === 'date') return brDate(cell);
  if (kind === 'boolean') {
    const folded = cell.toLowerCase();
    return TRUE.has(folded) ? true : FALSE.has(folded) ? false : cell;
  }
  return cell;
}

/**
 * A row's batch `data`: each mapped non-empty cell (an empty cell sends nothing, so an upsert keeps
 * what the record holds), relations as `{ relation: { key: value } }`. A value of the wrong type
 * (a number that is none) goes as the text it is, for the contract to refuse with its reason.
 */
export function rowData(resource: ImportResource, mapping: readonly (string | null)[], cells: string[]) {
  const fields = importFields[resource];
  const data: Record<string, unknown> = {};
  mapping.forEach((field, i) => {
    const cell = unescapedCell(cells[i]?.trim() ?? '');
    if (!field || field === 'id' || cell === '') return;
    const kind = fields[field]?.kind ?? 'text';
    if (kind.startsWith('ref:')) {
      const [relation, key] = kind.slice(4).split('.') as [string, string];
      data[relation] = { [key]: key === 'cnpj' ? cnpjCell(cell) : cell };
    } else data[field] = field === 'cnpj' ? cnpjCell(cell) : value(kind, cell);
  });
  return data;
}
