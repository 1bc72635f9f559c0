import { createRoute, z } from '@hono/zod-openapi';
import type { SQL } from 'drizzle-orm';
import type { Context } from 'hono';
import { Company, CompanyQuery, companySorts } from '../contracts/companies';
import { Contact, ContactQuery, contactSorts } from '../contracts/contacts';
import { Deal, DealQuery, dealSorts } from '../contracts/deals';
import { Task, TaskQuery, taskSorts } from '../contracts/tasks';
import { User, UserQuery, userSorts } from '../contracts/users';
import { type Cell, type CsvFormat, csvLine, excelTime, preamble } from '../core/csv';
import type { PagePlan } from '../db/keyset';
import { type Extras, type ListSpec, listOwn } from '../db/own';
import { companies, contacts, deals, type TrashTable, tasks, users } from '../db/schema';
import type { Search } from '../db/search';
import { accountOf } from '../db/tenant';
import type { AppEnv } from '../env';
import { bookmarkParam, errorResponses, router, traceHeaders } from '../http/openapi';
import { keysetWalk } from '../http/pagination';
import { companyFilters, companySearch, companySpec, presentCompany } from '../model/companies';
import { contactFilters, contactSearch, contactSpec, presentContact } from '../model/contacts';
import { dealFilters, dealSpec, presentDeal } from '../model/deals';
import { exportKeyColumns, exportKeys } from '../model/export-keys';
import { resources } from '../model/resources';
import { presentTask, taskFilters, taskSpec } from '../model/tasks';
import { presentUser, userFilters, userSearch, userSpec } from '../model/users';

/** Rows per page of the walk: memory holds one page, whatever the row count. */
const EXPORT_PAGE = 500;

type Row = { id: number } & Record<string, unknown>;
type Query = Record<string, unknown> & { sort?: string; deleted?: boolean };

/** What a resource's export reads: its list (table, extras, filters, search) and its presenter. */
type ExportOf = {
  tag: string;
  plural: string;
  table: TrashTable;
  spec: ListSpec<TrashTable, Extras>;
  resource: z.ZodObject;
  query: z.ZodObject;
  sorts: Readonly<Record<string, string>>;
  filters: (q: Query, sortColumn: PagePlan['sortColumn'], c: Context<AppEnv>) => (SQL | undefined)[];
  search?: (q: Query) => Search | undefined;
  present: (row: Row) => Record<string, unknown>;
};

/** A presented value as a cell: lists space-separated, objects as JSON, times for Excel in pt-BR. */
function cellOf(field: string, value: unknown, format: CsvFormat): Cell {
  if (value === null || value === undefined) return null;
  if (Array.isArray(value)) return value.join(' ');
  if (typeof value === 'object') return JSON.stringify(value);
  const time = format === 'excel' && typeof value === 'string' && /(_at|_date)$/.test(field);
  return time ? excelTime(value as string) : (value as Cell);
}

/** The export's route, for the OpenAPI document: the list's query less paging, plus `format`. */
function exportRoute(of: ExportOf) {
  const query = of.query.omit({ cursor: true, limit: true }).extend({
    format: z
      .enum(['csv', 'excel'])
      .optional()
      .openapi({ description: '`excel`: `;`, a UTF-8 BOM, dates as DD/MM/YYYY (UTC), decimal commas' }),
  });
  return createRoute({
    method: 'get',
    path: '/export',
    operationId: `export${of.plural}`,
    tags: [of.tag],
    security: [{ bearerAuth: [] }],
    summary: `Export ${of.tag.toLowerCase()} as CSV`,
    description: `Every ${of.tag.toLowerCase()} row the list's filters select, in the list's sort, streamed as CSV with the list's fields and each relation's natural key. A text cell starting with \`=\`, \`+\`, \`-\`, \`@\`, a tab or a carriage return is prefixed with \`'\` (OWASP CSV injection).`,
    parameters: [bookmarkParam],
    request: { query },
    responses: {
      200: {
        description: 'The CSV',
        headers: traceHeaders,
        content: { 'text/csv': { schema: z.string() } },
      },
      ...errorResponses(400, 429),
    },
  });
}

/** `GET /v1/<resource>/export`: every row the list's filters select, as CSV, page after page. */
function exportRouter(of: ExportOf) {
  const route = exportRoute(of);
  const fields = Object.keys(of.resource.shape);
  const keys = Object.keys(of.spec.extras ?? {}).filter((k) => Object.hasOwn(exportKeyColumns, k));
  return router().openapi(route, async (c) => {
    const q = c.req.valid('query') as Query & { format?: CsvFormat };
    const format = q.format ?? 'csv';
    const walk = keysetWalk<Row>(of.table, of.sorts as Record<string, string>, q.sort, EXPORT_PAGE);
    const page = async (last?: Row) => {
      const plan = walk(last);
      const spec = { ...of.spec, trash: q.deleted };
      const rows = (await listOwn(
        c.get('db'),
        c.get('keyHash'),
        spec,
        plan,
        of.filters(q, plan.sortColumn, c),
        of.search?.(q),
      )) as Row[];
      return { rows: rows.slice(0, EXPORT_PAGE), more: rows.length > EXPORT_PAGE };
    };
    const lines = (rows: Row[]) =>
      rows
        .map((row) => {
          const shown = of.present(row);
          const cells = [
            ...fields.map((f) => cellOf(f, shown[f], format)),
            ...keys.map((k) => row[k] as Cell),
          ];
          return csvLine(cells, format);
        })
        .join('');
    // The first page before the answer: a refused key or a bad filter is its problem, not a cut stream.
    let current = await page();
    const encoder = new TextEncoder();
    const header =
      preamble(format) + csvLine([...fields, ...keys.map((k) => exportKeyColumns[k] ?? k)], format);
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(encoder.encode(header + lines(current.rows)));
        if (!current.more) controller.close();
      },
      async pull(controller) {
        current = await page(current.rows.at(-1));
        controller.enqueue(encoder.encode(lines(current.rows)));
        if (!current.more) controller.close();
      },
    });
    const name = `${of.plural.toLowerCase()}.csv`;
    return c.body(body, 200, {
      'Content-Type': 'text/csv; charset=utf-8',
      'Content-Disposition': `attachment; filename="${name}"`,
    }) as never;
  });
}

const spec = <X extends Extras>(
  base: { table: TrashTable; extras?: Extras; unread?: readonly string[] },
  keys: X,
) => ({ ...base, extras: { ...base.extras, ...keys } }) as ListSpec<TrashTable, Extras>;

type AnyFilters = (q: never, sortColumn: PagePlan['sortColumn']) => (SQL | undefined)[];
const filtersOf = (f: AnyFilters) => (q: Query, s: PagePlan['sortColumn']) => f(q as never, s);
type AnyPresent = (row: never) => Record<string, unknown>;
const presentOf = (p: AnyPresent) => (row: Row) => p(row as never);

/** Each resource's export, mounted under its path (src/index.ts). */
export const exportRouters = {
  users: exportRouter({
    ...resources.users.names,
    table: users,
    spec: spec(userSpec, exportKeys.users),
    resource: User,
    query: UserQuery,
    sorts: userSorts,
    filters: filtersOf(userFilters),
    search: (q) => userSearch(q as never),
    present: presentOf(presentUser),
  }),
  companies: exportRouter({
    ...resources.companies.names,
    table: companies,
    spec: spec(companySpec, exportKeys.companies),
    resource: Company,
    query: CompanyQuery,
    sorts: companySorts,
    filters: filtersOf(companyFilters),
    search: (q) => companySearch(q as never),
    present: presentOf(presentCompany),
  }),
  contacts: exportRouter({
    ...resources.contacts.names,
    table: contacts,
    spec: spec(contactSpec, exportKeys.contacts),
    resource: Contact,
    query: ContactQuery,
    sorts: contactSorts,
    filters: filtersOf(contactFilters),
    search: (q) => contactSearch(q as never),
    present: presentOf(presentContact),
  }),
  deals: exportRouter({
    ...resources.deals.names,
    table: deals,
    spec: spec(dealSpec, exportKeys.deals),
    resource: Deal,
    query: DealQuery,
    sorts: dealSorts,
    filters: filtersOf(dealFilters),
    present: presentOf(presentDeal),
  }),
  tasks: exportRouter({
    ...resources.tasks.names,
    table: tasks,
    spec: spec(taskSpec, exportKeys.tasks),
    resource: Task,
    query: TaskQuery,
    sorts: taskSorts,
    filters: (q, s, c) => taskFilters(q as never, accountOf(c.get('keyHash')), s),
    present: presentOf(presentTask),
  }),
};
