import type { z } from '@hono/zod-openapi';
import { eq, isNull, sql } from 'drizzle-orm';
import { deletedAt, iso } from '../contracts/common';
import { Company, CompanyCreate, CompanyQuery, CompanyUpdate, companySorts } from '../contracts/companies';
import { canonicalCnpj } from '../core/cnpj';
import { inIds, rangeConditions } from '../core/filters';
import type { Refs } from '../core/refs';
import { nameColumns, normalizeText } from '../core/text';
import { countOf } from '../db/counts';
import { linkedUserIds, replaceLinks, userIdSet } from '../db/links';
import { listOwn, type Viewed, type WriteSpec } from '../db/own';
import { companies, contacts, deals } from '../db/schema';
import { search, searchIndexes } from '../db/search';
import { ownHandlers, trashHandlers } from '../http/handlers';
import { router } from '../http/openapi';
import { keyset } from '../http/pagination';
import { resourceRoutes, trashRoutes } from '../http/routes';

type Update = z.infer<typeof CompanyUpdate>;

// Counted in the company's own statement, so they are always current and a list costs one query.
const extras = {
  followerIds: linkedUserIds('followers'),
  dealCount: countOf(deals, deals.companyId, companies, eq(deals.status, 'open'), isNull(deals.deletedAt)),
  leadCount: countOf(contacts, contacts.companyId, companies, isNull(contacts.deletedAt)),
};

type Row = Viewed<typeof companies, typeof extras>;

const present = (row: Row): z.infer<typeof Company> => ({
  id: row.id,
  name: row.name,
  cnpj: row.cnpj,
  owner_id: row.ownerId,
  segment: row.segment,
  observations: row.observations,
  follower_ids: row.followerIds,
  deal_count: row.dealCount,
  lead_count: row.leadCount,
  created_at: iso(row.createdAt),
  updated_at: iso(row.updatedAt),
  deleted_at: deletedAt(row.deletedAt),
});

/** The fields a body sent, as columns: serves create (all required ones present) and update. */
function columns(body: Update): Partial<typeof companies.$inferInsert> {
  return {
    ...(body.name !== undefined && nameColumns(body.name)),
    ...(body.cnpj !== undefined && { cnpj: body.cnpj }),
    ...(body.owner_id !== undefined && { ownerId: body.owner_id }),
    ...(body.segment !== undefined && {
      segment: body.segment,
      segmentNorm: body.segment && normalizeText(body.segment),
    }),
    ...(body.observations !== undefined && { observations: body.observations }),
  };
}

const refs = (body: Update): Refs => ({
  owner_id: ['user', body.owner_id],
  follower_ids: ['user', body.follower_ids],
});

/** How a company is written; inbound webhook flows write companies through it too. */
export const companySpec: WriteSpec<typeof companies, Update, typeof extras> = {
  table: companies,
  extras,
  columns,
  refs,
  unique: 'cnpj',
  immutable: { cnpj: 'cnpj' },
  children: (db, body, accountId, id) =>
    body.follower_ids === undefined
      ? []
      : replaceLinks(
          db,
          'followers',
          accountId,
          // A new company is found by its CNPJ, unique in the account.
          id ??
            sql<number>`(select ${companies.id} from ${companies} where ${companies.accountId} = ${accountId} and ${companies.cnpj} = ${body.cnpj})`,
          body.follower_ids,
        ),
  created: (body) => ({ followerIds: userIdSet(body.follower_ids ?? []) }),
};

const routes = resourceRoutes(
  { tag: 'Companies', one: 'company', conflicts: true, schema: 'Company', plural: 'Companies' },
  { resource: Company, query: CompanyQuery, create: CompanyCreate, update: CompanyUpdate },
);

const handlers = ownHandlers('/v1/companies', companySpec, present);
const trash = trashRoutes(
  {
    tag: 'Companies',
    one: 'company',
    schema: 'Company',
    removeNote:
      'Its contacts and deals stay, and keep its id in `company_id` until it is purged (then null); it no longer counts, and cannot be referenced by new writes. Its CNPJ stays taken until then: a webhook event with that CNPJ restores it.',
  },
  { resource: Company },
);
const trashed = trashHandlers(companySpec, present);

export const companiesRouter = router()
  .openapi(routes.list, async (c) => {
    const q = c.req.valid('query');
    const page = keyset<Row>(companies, companySorts, q);
    const rows = await listOwn(
      c.get('db'),
      c.get('keyHash'),
      { ...companySpec, trash: q.deleted },
      page,
      [
        q.name ? eq(companies.nameNorm, normalizeText(q.name)) : undefined,
        // Only canonical CNPJs are stored, so a value that is not one matches nothing.
        q.cnpj ? eq(companies.cnpj, canonicalCnpj(q.cnpj) ?? q.cnpj) : undefined,
        q.owner_id ? inIds(companies.ownerId, q.owner_id) : undefined,
        q.segment ? eq(companies.segmentNorm, normalizeText(q.segment)) : undefined,
        ...rangeConditions(companies.createdAt, q, 'created_at', page.sortColumn),
      ],
      search(searchIndexes.companies, { name: q.name__contains, segment: q.segment__contains }),
    );
    return c.json(page.page(c, rows, present), 200);
  })
  .openapi(routes.get, handlers.get)
  .openapi(routes.create, handlers.create)
  .openapi(routes.update, handlers.update)
  .openapi(trash.remove, trashed.remove)
  .openapi(trash.restore, trashed.restore);
