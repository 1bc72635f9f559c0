import type { z } from '@hono/zod-openapi';
import { eq, isNull } from 'drizzle-orm';
import type { AnySQLiteColumn } from 'drizzle-orm/sqlite-core';
import { iso, isoAfter, isoOrNull } from '../contracts/common';
import type { Company, CompanyCreate, CompanyQuery, CompanyUpdate } from '../contracts/companies';
import { canonicalCnpj } from '../core/cnpj';
import type { Refs } from '../core/refs';
import { foldText, normalizeText, searchableName } from '../core/text';
import { countOf } from '../db/counts';
import { inIds, rangeConditions } from '../db/filters';
import { linkedUserIds, replaceLinks } from '../db/links';
import type { Viewed, WriteSpec } from '../db/own';
import { companies, contacts, deals } from '../db/schema';
import { search, searchIndexes } from '../db/search';
import { journaled } from '../journal';

type Create = z.infer<typeof CompanyCreate>;
type Update = z.infer<typeof CompanyUpdate>;

// Counted in the company's own statement, so they are always current and a list costs one query.
const extras = {
  followerIds: linkedUserIds('followers'),
  dealCount: countOf(deals, deals.companyId, companies, eq(deals.status, 'open'), isNull(deals.deletedAt)),
  leadCount: countOf(contacts, contacts.companyId, companies, isNull(contacts.deletedAt)),
};

export type CompanyRow = Viewed<typeof companies, typeof extras>;

export const presentCompany = (row: CompanyRow): z.infer<typeof Company> => {
  const created = iso(row.createdAt);
  return {
    id: row.id,
    name: row.name,
    cnpj: row.cnpj,
    owner_id: row.ownerId,
    segment: row.segment,
    observations: row.observations,
    follower_ids: row.followerIds,
    deal_count: row.dealCount,
    lead_count: row.leadCount,
    external_id: row.externalId,
    created_at: created,
    updated_at: isoAfter(row.updatedAt, row.createdAt, created),
    deleted_at: isoOrNull(row.deletedAt),
  };
};

/** The fields a body sent, as columns: serves create (all required ones present) and update. */
function columns(body: Update): Partial<typeof companies.$inferInsert> {
  return {
    ...(body.name !== undefined && searchableName(body.name)),
    ...(body.cnpj !== undefined && { cnpj: body.cnpj }),
    ...(body.owner_id !== undefined && { ownerId: body.owner_id }),
    ...(body.segment !== undefined && {
      segment: body.segment,
      segmentNorm: body.segment && normalizeText(body.segment),
      segmentFold: body.segment && foldText(body.segment),
    }),
    ...(body.observations !== undefined && { observations: body.observations }),
    ...(body.external_id !== undefined && { externalId: body.external_id }),
  };
}

const refs = (body: Update): Refs => ({
  owner_id: ['user', body.owner_id],
  follower_ids: ['user', body.follower_ids],
});

const written: WriteSpec<typeof companies, Create, Update, typeof extras> = {
  table: companies,
  extras,
  // Read by no presenter (a sort by one of them still selects it, for the cursor).
  unread: ['accountId', 'nameNorm', 'nameFold', 'segmentNorm', 'segmentFold'],
  create: (body) => columns(body),
  update: (body) => columns(body),
  refs,
  immutable: { cnpj: 'cnpj' },
  children: (db, body, accountId, id) =>
    body.follower_ids === undefined ? [] : replaceLinks(db, 'followers', accountId, id, body.follower_ids),
};

/** How a company is written; inbound webhook flows write companies through it too. */
export const companySpec = journaled('company', written, { derived: ['dealCount', 'leadCount'] });

type Query = z.infer<typeof CompanyQuery>;

/** The list's filters as conditions; a range on the sort column also bounds its walk. */
export const companyFilters = (q: Query, sortColumn: AnySQLiteColumn) => [
  q.name ? eq(companies.nameNorm, normalizeText(q.name)) : undefined,
  // Only canonical CNPJs are stored, so a value that is not one matches nothing.
  q.cnpj ? eq(companies.cnpj, canonicalCnpj(q.cnpj) ?? q.cnpj) : undefined,
  q.owner_id ? inIds(companies.ownerId, q.owner_id) : undefined,
  q.external_id ? eq(companies.externalId, q.external_id) : undefined,
  q.segment ? eq(companies.segmentNorm, normalizeText(q.segment)) : undefined,
  ...rangeConditions(companies.createdAt, q, 'created_at', sortColumn),
];

export const companySearch = (q: Query) =>
  search(searchIndexes.companies, { name: q.name__contains, segment: q.segment__contains });
