import type { Lang } from './i18n';

// The import page's words, in a module of their own (as zone-labels.ts): each resource, mode,
// field, action and status of an import named as a person says it.

const ptBR = {
  nav: 'Importar',
  title: 'Importar uma planilha',
  intro:
    'Envie um CSV (UTF-8 ou do Excel, com ; , ou tab). Antes de gravar, você vê as colunas e como as primeiras linhas seriam gravadas.',
  file: 'Arquivo CSV',
  fileHint: 'Até 25 MB pelo painel; arquivos maiores pela API (POST /v1/imports).',
  resource: 'O que as linhas são',
  mode: 'Como gravar',
  preview: 'Ver as colunas e as primeiras linhas',
  previewAgain: 'Ver de novo com estas colunas',
  start: 'Importar',
  columns: 'Colunas do arquivo',
  column: 'Coluna',
  field: 'Campo',
  ignored: 'Ignorada',
  firstRows: 'As primeiras linhas',
  firstRowsHint: 'Nada foi gravado ainda.',
  line: 'Linha',
  action: 'Ação',
  reason: 'Motivo',
  noRows: 'O arquivo tem só o cabeçalho.',
  recent: 'Importações recentes',
  noImports: 'Nenhuma importação ainda.',
  started: 'Início',
  status: 'Situação',
  progress: 'Progresso',
  rows: 'Linhas lidas',
  created: 'Criados',
  updated: 'Atualizados',
  unchanged: 'Sem mudança',
  failed: 'Com erro',
  refresh: 'Atualizar',
  cancel: 'Cancelar a importação',
  errors: 'Baixar as linhas com erro (CSV)',
  importOf: 'Importação',
  fileGone: 'O arquivo enviado não está mais guardado: envie-o de novo.',
  noFile: 'Escolha um arquivo CSV.',
  tooBig: 'O arquivo passa de 25 MB: envie-o pela API (POST /v1/imports).',
  export: 'Exportar CSV',
  exportExcel: 'Exportar para Excel',
  readOnly: 'Esta chave só lê: importar exige o escopo de criar ou atualizar o tipo de registro.',
};

type ImportWords = { readonly [K in keyof typeof ptBR]: string };

const en: ImportWords = {
  nav: 'Import',
  title: 'Import a spreadsheet',
  intro:
    'Send a CSV (UTF-8 or Excel’s, with ; , or tab). Before anything is written you see its columns and how its first rows would be written.',
  file: 'CSV file',
  fileHint: 'Up to 25 MB through the panel; larger files through the API (POST /v1/imports).',
  resource: 'What the rows are',
  mode: 'How to write them',
  preview: 'See the columns and the first rows',
  previewAgain: 'See again with these columns',
  start: 'Import',
  columns: 'The file’s columns',
  column: 'Column',
  field: 'Field',
  ignored: 'Ignored',
  firstRows: 'The first rows',
  firstRowsHint: 'Nothing is written yet.',
  line: 'Line',
  action: 'Action',
  reason: 'Reason',
  noRows: 'The file holds only its header.',
  recent: 'Recent imports',
  noImports: 'No imports yet.',
  started: 'Started',
  status: 'Status',
  progress: 'Progress',
  rows: 'Rows read',
  created: 'Created',
  updated: 'Updated',
  unchanged: 'Unchanged',
  failed: 'Failed',
  refresh: 'Refresh',
  cancel: 'Cancel the import',
  errors: 'Download the failed rows (CSV)',
  importOf: 'Import',
  fileGone: 'The file sent is no longer stored: send it again.',
  noFile: 'Choose a CSV file.',
  tooBig: 'The file is over 25 MB: send it through the API (POST /v1/imports).',
  export: 'Export CSV',
  exportExcel: 'Export for Excel',
  readOnly: 'This key only reads: an import needs the scope to create or update its kind of record.',
};

export const importWords: Record<Lang, ImportWords> = { 'pt-BR': ptBR, en };

const resources = {
  'pt-BR': { companies: 'Empresas', contacts: 'Contatos', deals: 'Negócios', tasks: 'Tarefas' },
  en: { companies: 'Companies', contacts: 'Contacts', deals: 'Deals', tasks: 'Tasks' },
};

const modes = {
  'pt-BR': {
    upsert: 'Atualizar quem já existe, criar os novos',
    create: 'Só criar novos',
    update: 'Só atualizar quem já existe (coluna id)',
  },
  en: {
    upsert: 'Update those that exist, create the new ones',
    create: 'Only create new ones',
    update: 'Only update those that exist (id column)',
  },
};

const actions = {
  'pt-BR': { create: 'Criar', update: 'Atualizar', fail: 'Falhar' },
  en: { create: 'Create', update: 'Update', fail: 'Fail' },
};

const statuses = {
  'pt-BR': {
    queued: 'Na fila',
    running: 'Em andamento',
    completed: 'Concluída',
    failed: 'Falhou',
    cancelled: 'Cancelada',
  },
  en: {
    queued: 'Queued',
    running: 'Running',
    completed: 'Completed',
    failed: 'Failed',
    cancelled: 'Cancelled',
  },
};

const fields = {
  'pt-BR': {
    id: 'Id do registro (no CRM)',
    name: 'Nome',
    cnpj: 'CNPJ',
    segment: 'Segmento',
    observations: 'Observações',
    external_id: 'ID externo',
    owner_email: 'E-mail do responsável',
    email: 'E-mail',
    phone: 'Telefone',
    company_cnpj: 'CNPJ da empresa',
    value: 'Valor',
    status: 'Situação',
    contact_email: 'E-mail do contato',
    description: 'Descrição',
    due_date: 'Data de vencimento',
    category: 'Categoria',
    is_completed: 'Concluída',
    deal_external_id: 'ID externo do negócio',
  },
  en: {
    id: 'Record id (in the CRM)',
    name: 'Name',
    cnpj: 'CNPJ',
    segment: 'Segment',
    observations: 'Observations',
    external_id: 'External ID',
    owner_email: 'Owner’s email',
    email: 'Email',
    phone: 'Phone',
    company_cnpj: 'Company’s CNPJ',
    value: 'Value',
    status: 'Status',
    contact_email: 'Contact’s email',
    description: 'Description',
    due_date: 'Due date',
    category: 'Category',
    is_completed: 'Completed',
    deal_external_id: 'Deal’s external ID',
  },
};

/** `table`'s word for `value` in `lang`, or the value itself when it has none. */
const wordOf =
  <T extends Record<Lang, Record<string, string>>>(table: T) =>
  (lang: Lang, value: string): string =>
    Object.hasOwn(table[lang], value) ? (table[lang][value] as string) : value;

export const resourceWord = wordOf(resources);
export const modeWord = wordOf(modes);
export const actionWord = wordOf(actions);
export const importStatusWord = wordOf(statuses);
export const fieldWord = wordOf(fields);
