import { createRoute } from '@hono/zod-openapi';
import { list } from '../contracts/common';
import { TaskCategory, TaskCategoryQuery } from '../contracts/tasks';
import { listOwn } from '../db/own';
import { taskCategories } from '../db/schema';
import { bookmarkParam, errorResponses, jsonContent, router } from '../http/openapi';
import { keyset } from '../http/pagination';
import { presentTaskCategory, type TaskCategoryRow, taskCategorySpec } from '../model/task-categories';

const listCategories = createRoute({
  method: 'get',
  path: '/',
  operationId: 'listTaskCategories',
  tags: ['Tasks'],
  security: [{ bearerAuth: [] }],
  summary: "List the account's task categories, by name",
  description: 'Categories are created by naming them on a task.',
  parameters: [bookmarkParam],
  request: { query: TaskCategoryQuery },
  responses: {
    200: jsonContent(list(TaskCategory, 'TaskCategory'), 'One page'),
    ...errorResponses(400, 429),
  },
});

export const taskCategoriesRouter = router().openapi(listCategories, async (c) => {
  const q = c.req.valid('query');
  const page = keyset<TaskCategoryRow>(taskCategories, { name: 'nameNorm' }, { ...q, sort: 'name' });
  const rows = await listOwn(c.get('db'), c.get('keyHash'), taskCategorySpec, page, []);
  return c.json(page.page(c, rows, presentTaskCategory), 200);
});
