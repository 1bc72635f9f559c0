import { z } from 'zod';

/**
 * A message of the `crm-moves` queue: run step `step` of move `move_id` (src/moves/steps.ts). The
 * move's row on shard 0 names the step it expects next; a message naming another (a duplicate, a
 * retry of a step already done) is acked and does nothing.
 */
export const MoveMessage = z.strictObject({
  kind: z.literal('move_step'),
  move_id: z.number().int().positive(),
  step: z.number().int().min(0),
});
export type MoveMessage = z.infer<typeof MoveMessage>;

export const MOVES_QUEUE = 'crm-moves';

export const moveStep = (moveId: number, step: number): MoveMessage => ({
  kind: 'move_step',
  move_id: moveId,
  step,
});
