import type { FieldError } from '../../core/errors';
import { causeOf, reason as reasonOf, type Said, said } from '../../core/said';
import type { ValidStep, WritableStep } from '../actions';
import { moduleOf } from '../actions';
import type { SettleContext, StepBase } from '../actions/action';
import type { FieldMapping } from '../rules/config';
import { type Plan, type Reason, type Step, skippedWarning, sourceOf } from '../rules/flows';
import { parseStep } from './records';

// An event's lead is never lost for a value a flow cannot use: the value is left out of its record,
// or, when the record cannot be written without it, the action is skipped; each with a warning,
// while the other actions run.

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

/**
 * The plan's steps with their bodies parsed by the `/v1` schemas. A value a schema refuses is left
 * out of its record with a `dropped` warning; an action that cannot do without it (its module's
 * `essential`: a company's CNPJ, a deal's or task's name) is skipped with a `step_skipped` warning,
 * and so are the actions that need a skipped one (the tasks of a skipped deal).
 */
export function usableSteps(plan: Plan, fields: readonly FieldMapping[]): Salvaged {
  const out: Salvaged = { steps: [], skipped: [...plan.skipped], warnings: [...plan.warnings] };
  const skippedHere = new Set<string>();
  for (const step of plan.steps) {
    const { needs, essential } = moduleOf(step.action);
    const skip = (reason: Reason) => {
      out.skipped.push({ index: step.index, action: step.action, reason: reason.message });
      out.warnings.push(skippedWarning(step.index, step.action, reason));
      skippedHere.add(step.action);
    };
    if (needs && skippedHere.has(needs.action)) {
      skip(needs.reason);
      continue;
    }
    let parsed = parseStep(step);
    if ('errors' in parsed) {
      const { record, errors } = parsed;
      const fatal = errors.find((e) => !e.path || essential.includes(e.path.split('.')[0] ?? ''));
      if (fatal) {
        skip(reasonOf('unusable', { record, field: fatal.path, cause: causeOf(fatal) }));
        continue;
      }
      for (const e of errors) {
        out.warnings.push({
          path: sourceOf(fields, record, step.index, e.path),
          ...said('dropped', { record, cause: causeOf(e) }),
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
        const { errors } = parsed;
        skip(
          reasonOf('breaks_rule', {
            record,
            fields: errors.map((e) => e.path),
            detail: errors.map((e) => `${e.path}: ${e.message}`).join('; '),
          }),
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
    const ids = gone.map((e) => Number(e.params?.id));
    const params = { action: step.action, index: step.index, user_ids: ids, left: left.length };
    out.push({ path, ...said('owner_unavailable', params) });
    const { owner: _, ...rest } = step;
    return (left.length ? { ...rest, owner: { round_robin: left } } : rest) as ValidStep;
  });
}

/**
 * The steps as they will be written, against what the lookup found: each action's module settles
 * its own (src/webhooks/actions/). First the `early` pass, which may fail the event (a contact to
 * create without a name, email or phone to name it after), then `settle`, which may skip a step
 * (a company to create without a name) or leave values out (custom fields beyond the /v1 limit).
 */
export function writableSteps(
  steps: ValidStep[],
  found: SettleContext['found'],
  fields: readonly FieldMapping[],
  out: Salvaged,
): { steps: WritableStep[] } | { error: Said } {
  const ctx: SettleContext = { found, fields, warn: (w) => out.warnings.push(w) };
  const early: StepBase[] = [];
  for (const step of steps) {
    const first = moduleOf(step.action).early?.(step, ctx) ?? { step };
    if ('fail' in first) return { error: first.fail };
    early.push(first.step);
  }
  return {
    steps: early.flatMap((step): WritableStep[] => {
      const settled = moduleOf(step.action).settle?.(step, ctx) ?? { step };
      // Each module settles the steps of its own action into its own writable step.
      if ('step' in settled) return [settled.step as WritableStep];
      if ('skip' in settled) {
        out.skipped.push({ index: step.index, action: step.action, reason: settled.skip.message });
        out.warnings.push(skippedWarning(step.index, step.action, settled.skip));
      }
      return [];
    }),
  };
}
