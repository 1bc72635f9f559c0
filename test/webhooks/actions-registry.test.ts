import { z } from '@hono/zod-openapi';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { draftOf } from '../../src/panel/form';
import { messages } from '../../src/panel/i18n';
import { actionLabel } from '../../src/panel/labels';
import { configForm } from '../../src/panel/views/config-form';
import type { Page } from '../../src/panel/views/layout';
import { actions, planFlows, type WritableStep } from '../../src/webhooks/actions';
import type { ActionName } from '../../src/webhooks/actions/action';
import { FieldMapping } from '../../src/webhooks/config/schema';
import { Action } from '../../src/webhooks/contract/schemas';
import { preview } from '../../src/webhooks/processing/records';
import { usableSteps, writableSteps } from '../../src/webhooks/processing/salvage';

// The registry (src/webhooks/actions/index.ts) is the one list of flow actions: the contract, the
// panel and the queue take theirs from it, so an action added there is everywhere at once.

const FIELDS = z.array(FieldMapping).parse([
  { key: 'nome', type: 'string', target: 'contact.name' },
  { key: 'email', type: 'email', target: 'contact.email' },
  { key: 'telefone', type: 'phone', target: 'contact.phone' },
  { key: 'cnpj', type: 'string', target: 'company.cnpj' },
  { key: 'empresa', type: 'string', target: 'company.name' },
]);

/** The least options of each action of the registry (a new one does not type-check until it is here). */
const LEAST = {
  upsert_contact: {},
  upsert_company: {},
  create_deal: { name: 'Lead {{nome}}' },
  create_task: { name: 'Ligar', category: 'Call' },
} satisfies Record<ActionName, object>;

/** One stored action of each kind in the registry, in its order. */
const FLOWS = z.array(Action).parse(actions.map((m) => ({ action: m.name, ...LEAST[m.name] })));

const VALUES = new Map<string, string>([
  ['email', 'ana@example.com'],
  ['telefone', '+5511988887777'],
  ['cnpj', '11222333000181'],
  ['empresa', 'ACME'],
]);

const found = { turns: new Map<number, number>() };

function page(lang: 'pt-BR' | 'en'): Page {
  return {
    lang,
    t: messages[lang],
    zone: 'UTC',
    path: '/panel/webhooks/new',
    signedIn: true,
    can: () => true,
  };
}

describe('the flow action registry is the single source', () => {
  it('the contract admits exactly the registry actions, in its order', () => {
    const names = Action.options.map((o) => o.shape.action.value);
    expect(names).toEqual(actions.map((m) => m.name));
  });

  it('every action has a distinct label in both languages; the panel shows its action label, the name as the value', async () => {
    for (const lang of ['pt-BR', 'en'] as const) {
      const labels = actions.map((m) => m.labels[lang]);
      expect(labels.every((l) => l.trim().length > 0)).toBe(true);
      expect(new Set(labels).size).toBe(actions.length);
      const html = String(
        await configForm(
          page(lang),
          '/panel/webhooks',
          draftOf({ name: 'x', fields: [], flows: [] }),
          { live: [], named: [] },
          new Map(),
          'Save',
        ),
      );
      for (const m of actions) {
        expect(html).toContain(`<option value="${m.name}">${actionLabel({ lang }, m.name)}</option>`);
      }
    }
  });

  it('every action plans, settles and previews: one configuration of each writes an entry of each', () => {
    const plan = planFlows({ fields: FIELDS, flows: FLOWS }, VALUES, {
      receivedAt: Date.parse('2026-01-10T12:00:00Z'),
      zone: 'UTC',
    });
    const salvaged = usableSteps(plan, FIELDS);
    const settled = writableSteps(salvaged.steps, found, FIELDS, salvaged);
    if ('error' in settled) throw new Error(settled.error.message);
    expect(settled.steps.map((s) => s.action)).toEqual(actions.map((m) => m.name));
    for (const step of settled.steps) {
      const alone = preview([step], found, []);
      const { tasks, skipped, ...records } = alone as { tasks: unknown[]; skipped: unknown[] };
      expect(Object.keys(records).length + tasks.length, step.action).toBe(1);
    }
  });
});

describe('a record to create has a name, by its type', () => {
  it('names a contact to create after its email when the event has no name, and fails an event with nothing to name it after', () => {
    const plan = planFlows({ fields: FIELDS, flows: FLOWS.slice(0, 1) }, VALUES, {
      receivedAt: 0,
      zone: 'UTC',
    });
    const salvaged = usableSteps(plan, FIELDS);
    const settled = writableSteps(salvaged.steps, found, FIELDS, salvaged);
    expect(settled).toMatchObject({
      steps: [{ action: 'upsert_contact', target: { name: 'ana@example.com' } }],
    });
    expect(salvaged.warnings.map((w) => w.code)).toEqual(['contact_named_from']);

    const bare = planFlows({ fields: FIELDS, flows: FLOWS.slice(0, 1) }, new Map(), {
      receivedAt: 0,
      zone: 'UTC',
    });
    const none = usableSteps(bare, FIELDS);
    expect(writableSteps(none.steps, found, FIELDS, none)).toEqual({
      error: {
        code: 'contact_unnamed',
        params: {},
        message: expect.stringMatching(/^contact\.name: needed to create a contact/),
      },
    });
  });

  it('skips a company to create without a name, and updates one found by its CNPJ without one', () => {
    const values = new Map(VALUES);
    values.delete('empresa');
    const plan = planFlows({ fields: FIELDS, flows: FLOWS.slice(1, 2) }, values, {
      receivedAt: 0,
      zone: 'UTC',
    });
    const salvaged = usableSteps(plan, FIELDS);
    expect(writableSteps(salvaged.steps, found, FIELDS, salvaged)).toEqual({ steps: [] });
    expect(salvaged.skipped.map((s) => s.action)).toEqual(['upsert_company']);
    const again = usableSteps(plan, FIELDS);
    expect(writableSteps(again.steps, { ...found, companyId: 9 }, FIELDS, again)).toMatchObject({
      steps: [{ action: 'upsert_company', target: { id: 9 } }],
    });
  });

  it('types a contact or company step as either found (an id) or created with a name', () => {
    type Upsert = Extract<WritableStep, { action: 'upsert_contact' | 'upsert_company' }>;
    expectTypeOf<Exclude<Upsert['target'], { id: number }>>().toEqualTypeOf<{ name: string }>();
  });
});
