import type { z } from '@hono/zod-openapi';
import { type Action, configIssues as checkWith, type FieldMapping } from '../rules/config';
import { type Plan, planFlows as planWith, type Values } from '../rules/flows';
import type { ActionModule, ActionName, StepBase, ValidOf } from './action';
import { createDeal } from './create-deal';
import { createTask } from './create-task';
import { upsertCompany } from './upsert-company';
import { upsertContact } from './upsert-contact';

/**
 * Every flow action, one line each, in the order the contract's union and the panel list them.
 * Adding one: its module in this folder and its line here (the `Action` type is the union's output).
 */
export const actions = [upsertContact, upsertCompany, createDeal, createTask] as const;

type Module = (typeof actions)[number];
type ValidOfModule<M> = M extends { name: infer N extends ActionName; body: z.ZodType<infer B> }
  ? ValidOf<N, B>
  : never;

/** A planned step whose body passed its record's `/v1` schema. */
export type ValidStep = ValidOfModule<Module>;
/** A step as its statements write it (a record to create has its name). */
export type WritableStep = Parameters<Module['statements']>[1];

/**
 * Any module, called through the registry: its methods take any step (method parameters are
 * bivariant), and the caller passes each module the steps of its own action.
 */
export type AnyModule = ActionModule<ActionName, z.ZodType, StepBase, StepBase, StepBase>;

const byName = new Map<string, AnyModule>(actions.map((m) => [m.name, m]));

/** The module of an action named from outside (a form), if the registry has one. */
export const findAction = (name: string): AnyModule | undefined => byName.get(name);

/** The module of a stored action's kind (the contract admits only the registry's names). */
export function moduleOf(name: ActionName): AnyModule {
  const found = byName.get(name);
  if (!found) throw new Error(`No flow action ${name}`);
  return found;
}

/** The contract's checks plus each action's own, on a whole configuration. */
export const configIssues = (fields: FieldMapping[], flows: Action[]) =>
  checkWith(fields, flows, (action) => moduleOf(action.action));

/** What an event's flows do (core's planFlows, each action planned by its module). */
export const planFlows = (
  config: { fields: readonly FieldMapping[]; flows: readonly Action[] },
  values: Values,
  when: { receivedAt: number; zone: string },
): Plan => planWith(config, values, when, (action) => moduleOf(action.action));
