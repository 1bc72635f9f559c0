import { z } from '@hono/zod-openapi';
import { and, eq, sql } from 'drizzle-orm';
import { DealCreate } from '../../contracts/deals';
import { said } from '../../core/said';
import { newRow } from '../../db/own';
import { deals } from '../../db/schema';
import { dealSpec } from '../../model/deals';
import { common, Template } from '../config/schema';
import { render, templateKeys } from '../rules/templates';
import type { ActionModule, ValidOf } from './action';

const schema = z.strictObject({
  action: z.literal('create_deal'),
  name: Template.optional().openapi({ description: 'Default: the field mapped to `deal.name`' }),
  ...common,
});

type Valid = ValidOf<'create_deal', z.infer<typeof DealCreate>>;

/** Creates a deal, linked to the contact and the company the flow found or made before it. */
export const createDeal: ActionModule<'create_deal', typeof schema, Valid, Valid> = {
  name: 'create_deal',
  schema,
  once: true,
  check(action, { flows, index, mapped, issue, undeclared }) {
    for (const earlier of ['upsert_contact', 'upsert_company'] as const) {
      if (flows.slice(index + 1).some((a) => a.action === earlier))
        issue(said('deal_order', { action: earlier }), 'action');
    }
    if (action.name === undefined && !mapped('deal.name'))
      issue(said('deal_name_needed', { target: 'deal.name' }), 'name');
    if (action.name) for (const key of templateKeys(action.name)) undeclared(key, 'name');
  },
  plan(action, { mapped, lookup }) {
    const body = mapped('deal');
    if (action.name !== undefined) body.name = render(action.name, lookup);
    return { body };
  },
  record: 'deal',
  body: DealCreate,
  essential: ['name'],
  statements(w, step) {
    const owner = w.owner(step);
    w.push(
      w.db.insert(deals).values({
        ...newRow(w.db, dealSpec, step.body, w.accountId, w.now),
        contactId: w.result('contactId'),
        companyId: w.result('companyId'),
        ...(owner && { ownerId: owner }),
      }),
      w.setResult({ dealId: sql`last_insert_rowid()` }),
    );
  },
  journal: (w) =>
    dealSpec.journal.after(
      w.db,
      and(eq(deals.accountId, w.accountId), eq(deals.id, w.result('dealId'))),
      w.actor,
      w.now,
    ),
  preview(step, owner, out) {
    out.deal = { action: 'create', fields: { ...step.body, ...owner } };
  },
  panel: { name: 'optional' },
  labels: { 'pt-BR': 'Criar negócio', en: 'Create deal' },
};
