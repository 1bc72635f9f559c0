import { MAX_CUSTOM_FIELDS } from '../contracts/common';
import type { FieldError } from '../core/errors';
import { type Plan, type Step, skippedWarning } from '../core/flows';
import type { FieldMapping } from '../core/webhook-config';
import { type Found, parseStep, type ValidStep } from './records';

// An event's lead is never lost for a value a flow cannot use: the value is left out of its record,
// or, when the record cannot be written without it, the action is skipped; each with a warning,
// while the other actions run.

/** What each action cannot do without: its key, or its record's name. */
const ESSENTIAL: Record<Step['action'], readonly string[]> = {
  upsert_contact: [],
  upsert_company: ['cnpj'],
  create_deal: ['name'],
  create_task: ['name', 'category'],
};

type Skipped = Plan['skipped'];

/** The steps and what salvaging them left out: actions skipped and the warnings of both. */
export type Salvaged = { steps: ValidStep[]; skipped: Skipped; warnings: FieldError[] };

/** The body without the values at these paths (`name`, `custom_fields.x`); a due date becomes none. */
function without(body: Record<string, unknown>, paths: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = { ...body };
  for (const path of paths) {
    const [top = '', rest] = path.split(/\.(.*)/s);
    const custom = out.custom_fields;
    if (top === 'custom_fields' && rest && typeof custom === 'object' && custom !== null) {
      const { [rest]: _, ...kept } = custom as Record<string, unknown>;
      if (Object.keys(kept).length) out.custom_fields = kept;
      else delete out.custom_fields;
    } else if (top === 'due_date') out.due_date = null;
    else delete out[top];
  }
  return out;
}

/** The key of the webhook field whose value filled `record.path`, or the action's own path. */
const sourceOf = (fields: readonly FieldMapping[], record: string, index: number, path: string) =>
  fields.find((f) => f.target === `${record}.${path}`)?.key ?? `flows.${index}.${path}`;

/**
 * The plan's steps with their bodies parsed by the `/v1` schemas. A value a schema refuses is left
 * out of its record with a `dropped` warning; an action that cannot do without it (a company's
 * CNPJ, a deal's or task's name) is skipped with a `step_skipped` warning, and so are the tasks of
 * a skipped deal.
 */
export function usableSteps(plan: Plan, fields: readonly FieldMapping[]): Salvaged {
  const out: Salvaged = { steps: [], skipped: [...plan.skipped], warnings: [...plan.warnings] };
  let dealSkipped = false;
  for (const step of plan.steps) {
    const skip = (reason: string) => {
      out.skipped.push({ index: step.index, action: step.action, reason });
      out.warnings.push(skippedWarning(step.index, step.action, reason));
      if (step.action === 'create_deal') dealSkipped = true;
    };
    if (step.action === 'create_task' && dealSkipped) {
      skip('no deal was created before it');
      continue;
    }
    let parsed = parseStep(step);
    if ('errors' in parsed) {
      const { record, errors } = parsed;
      const fatal = errors.find(
        (e) => !e.path || ESSENTIAL[step.action].includes(e.path.split('.')[0] ?? ''),
      );
      if (fatal) {
        skip(`its ${record}'s ${fatal.path || 'body'} is unusable (${fatal.message})`);
        continue;
      }
      for (const e of errors) {
        out.warnings.push({
          path: sourceOf(fields, record, step.index, e.path),
          code: 'dropped',
          message: `Left out of the ${record}: ${e.message}`,
        });
      }
      parsed = parseStep({
        ...step,
        body: without(
          step.body,
          errors.map((e) => e.path),
        ),
      } as Step);
      if ('errors' in parsed) {
        skip(
          `its ${record} breaks a rule (${parsed.errors.map((e) => `${e.path}: ${e.message}`).join('; ')})`,
        );
        continue;
      }
    }
    out.steps.push(parsed.step);
  }
  return out;
}

/**
 * The steps with each owner who is not a live user of the account (deleted, or in the trash, since
 * the webhook was configured) taken out: from a round robin, the others keep their turns; a record
 * whose only owner is gone is written without one. `missing` are the failed owner references of
 * ownerRefs(steps), at `flows.<position in steps>.owner...`.
 */
export function liveOwners(
  steps: ValidStep[],
  missing: readonly FieldError[],
  out: FieldError[],
): ValidStep[] {
  return steps.map((step, position) => {
    const gone = missing.filter((e) => e.path.startsWith(`flows.${position}.owner.`));
    if (!gone.length || !step.owner) return step;
    const path = `flows.${step.index}.owner`;
    const owner = step.owner;
    const left =
      'round_robin' in owner
        ? owner.round_robin.filter((_, j) => !gone.some((e) => e.path.endsWith(`.round_robin.${j}`)))
        : [];
    const message = `${gone.map((e) => e.message).join(' ')} ${
      left.length ? 'The round robin went on without them.' : `The ${step.action} ran without an owner.`
    }`;
    out.push({ path, code: 'owner_unavailable', message });
    const { owner: _, ...rest } = step;
    return (left.length ? { ...rest, owner: { round_robin: left } } : rest) as ValidStep;
  });
}

/**
 * The steps that can still be written against what the lookup found: a company that would have to
 * be created without a name is skipped (an existing CNPJ needs none), and mapped custom fields
 * beyond the /v1 limit once merged into the contact's are left out. (A contact to create without a
 * name is named by namedContact.)
 */
export function writableSteps(
  steps: ValidStep[],
  found: Found & { customFields?: Record<string, unknown> | undefined },
  fields: readonly FieldMapping[],
  out: Salvaged,
): ValidStep[] {
  return steps.flatMap((step): ValidStep[] => {
    const skip = (reason: string) => {
      out.skipped.push({ index: step.index, action: step.action, reason });
      out.warnings.push(skippedWarning(step.index, step.action, reason));
      return [];
    };
    if (step.action === 'upsert_company' && found.companyId === undefined && step.body.name === undefined)
      return skip('no company has this CNPJ, and the event has no company name to create one with');
    if (step.action !== 'upsert_contact') return [step];
    const custom = step.body.custom_fields;
    if (!custom) return [step];
    const keys = new Set(Object.keys(found.customFields ?? {}));
    const kept: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(custom)) {
      if (keys.has(key) || keys.size < MAX_CUSTOM_FIELDS) {
        keys.add(key);
        kept[key] = value;
      } else {
        out.warnings.push({
          path: sourceOf(fields, 'contact', step.index, `custom_fields.${key}`),
          code: 'dropped',
          message: `Left out of the contact: it has ${MAX_CUSTOM_FIELDS} custom fields already, the most it may have.`,
        });
      }
    }
    return [{ ...step, body: { ...step.body, custom_fields: kept } } as ValidStep];
  });
}

/**
 * A contact to create without a name (none mapped, and nothing matched) is named after its email,
 * else its phone (both as normalised), as HubSpot does, with a `contact_named_from` warning, so the
 * lead is kept. Without either it cannot be found again: the event fails with this reason.
 */
export function namedContact(
  steps: ValidStep[],
  found: Found,
  out: Salvaged,
): { steps: ValidStep[] } | { error: string } {
  const i = steps.findIndex((s) => s.action === 'upsert_contact');
  const step = steps[i];
  if (step?.action !== 'upsert_contact' || found.contactId !== undefined || step.body.name !== undefined)
    return { steps };
  const { email, phone } = step.body;
  const from = email
    ? { field: 'email', value: email }
    : phone
      ? { field: 'phone', value: phone }
      : undefined;
  if (!from) {
    return {
      error:
        'contact.name: needed to create a contact, and the event has no name, email or phone to name it after (no existing contact matched).',
    };
  }
  out.warnings.push({
    path: `flows.${step.index}`,
    code: 'contact_named_from',
    message: `The event has no contact name and no existing contact matched: the new contact is named after its ${from.field}, ${from.value}.`,
  });
  const named = steps.slice();
  named[i] = { ...step, fallbackName: from.value };
  return { steps: named };
}
