import { z } from '@hono/zod-openapi';
import { and, eq, isNotNull, sql } from 'drizzle-orm';
import { CompanyUpdate } from '../../contracts/companies';
import { reason, said } from '../../core/said';
import { changedColumns, newRow } from '../../db/own';
import { companies } from '../../db/schema';
import { companySpec } from '../../model/companies';
import { common } from '../config/schema';
import { type ActionModule, lookup, type Target, type ValidOf } from './action';

const schema = z.strictObject({ action: z.literal('upsert_company'), ...common });

type Valid = ValidOf<'upsert_company', z.infer<typeof CompanyUpdate> & { cnpj: string }>;
type Writable = Valid & { target: Target };

/** Finds the account's company of the event's CNPJ, else creates it; the event's name updates it. */
export const upsertCompany: ActionModule<'upsert_company', typeof schema, Valid, Writable> = {
  name: 'upsert_company',
  schema,
  once: true,
  check(_, { mapped, issue }) {
    if (!mapped('company.cnpj')) issue(said('target_unmapped', { target: 'company.cnpj' }), 'action');
  },
  plan: (_, { mapped, mappedValue }) =>
    mappedValue('company.cnpj') === undefined ? { skip: reason('no_cnpj') } : { body: mapped('company') },
  record: 'company',
  body: CompanyUpdate as z.ZodType<Valid['body']>,
  essential: ['cnpj'],
  // The account's company of the CNPJ, in the trash or not (a CNPJ is unique in the account).
  lookup: (step, db, accountId) =>
    lookup(
      db
        .select({ id: companies.id })
        .from(companies)
        .where(and(eq(companies.accountId, accountId), eq(companies.cnpj, step.body.cnpj))),
      ([company]) => ({ companyId: company?.id }),
    ),
  // An existing CNPJ needs no name; a company to create does.
  settle(step, { found }) {
    if (found.companyId !== undefined) return { step: { ...step, target: { id: found.companyId } } };
    const { name } = step.body;
    if (name === undefined) return { skip: reason('no_company_name') };
    return { step: { ...step, target: { name } } };
  },
  statements(w, step) {
    const { db, accountId, now } = w;
    const { cnpj, name } = step.body;
    const mine = and(eq(companies.accountId, accountId), eq(companies.cnpj, cnpj));
    // The company as it was, if it exists: the event's one entry for it tells what changed.
    w.push(companySpec.journal.before(db, mine, 'updated', w.actor, now));
    if ('name' in step.target) {
      const owner = w.owner(step);
      w.push(
        db
          .insert(companies)
          .values({
            ...newRow(db, companySpec, { ...step.body, name: step.target.name }, accountId, now),
            ...(owner && { ownerId: owner }),
          })
          .onConflictDoNothing({ target: [companies.accountId, companies.cnpj] }),
      );
    }
    w.push(
      w.setResult({ companyId: sql`(select ${companies.id} from ${companies} where ${mine})` }),
      // A CNPJ is one legal entity, and its company stays in the account while in the trash
      // (CNPJs are unique there): the event brings it back rather than write into the trash.
      db
        .update(companies)
        .set({ deletedAt: null })
        .where(and(mine, isNotNull(companies.deletedAt))),
    );
    // As for contacts: a found (or raced) company takes the event's name.
    if (name !== undefined) {
      w.push(
        db
          .update(companies)
          .set({
            ...changedColumns(companySpec, { name }, accountId),
            updatedAt: sql`max(${now}, ${companies.updatedAt})`,
          })
          .where(mine),
      );
    }
  },
  journal: (w) =>
    companySpec.journal.after(
      w.db,
      and(eq(companies.accountId, w.accountId), eq(companies.id, w.result('companyId'))),
      w.actor,
      w.now,
    ),
  preview(step, owner, out) {
    // An update keeps the record's owner, so only a create shows one.
    const { target } = step;
    out.company =
      'id' in target
        ? { action: 'update', id: target.id, fields: step.body }
        : { action: 'create', fields: { ...step.body, ...owner } };
  },
  panel: {},
  labels: { 'pt-BR': 'Criar ou atualizar empresa', en: 'Create or update company' },
};
