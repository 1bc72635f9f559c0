import type { z } from '@hono/zod-openapi';
import type { TaskCategory } from '../contracts/tasks';
import { taskCategories } from '../db/schema';

/** Categories are only read here: a task's write creates its category (see model/tasks.ts). */
export const taskCategorySpec = { table: taskCategories };

export type TaskCategoryRow = typeof taskCategories.$inferSelect;

export const presentTaskCategory = (row: TaskCategoryRow): z.infer<typeof TaskCategory> => ({
  id: row.id,
  name: row.name,
  task_count: row.taskCount,
});
