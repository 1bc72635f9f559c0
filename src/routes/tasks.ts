import { Task, TaskCreateRequest, TaskQuery, TaskUpdateRequest, taskSorts } from '../contracts/tasks';
import { listOwn } from '../db/own';
import { tasks } from '../db/schema';
import { accountOf } from '../db/tenant';
import { ownHandlers, trashHandlers } from '../http/handlers';
import { router } from '../http/openapi';
import { keyset } from '../http/pagination';
import { resourceRoutes, trashRoutes } from '../http/routes';
import { keyedWrite } from '../model/keyed-write';
import { resources } from '../model/resources';
import { presentTask, type TaskRow, taskFilters, taskSpec, taskTrash } from '../model/tasks';

const routes = resourceRoutes(
  { ...resources.tasks.names },
  { resource: Task, query: TaskQuery, create: TaskCreateRequest, update: TaskUpdateRequest },
);

const handlers = ownHandlers('/v1/tasks', taskSpec, presentTask, keyedWrite(resources.tasks));

const trash = trashRoutes(
  {
    ...resources.tasks.names,
    removeNote: "A task in the trash no longer counts in its category's `task_count`.",
  },
  { resource: Task },
);
const trashed = trashHandlers(taskTrash, presentTask);

export const tasksRouter = router()
  .openapi(routes.list, async (c) => {
    const q = c.req.valid('query');
    const account = accountOf(c.get('keyHash'));
    const page = keyset<TaskRow>(tasks, taskSorts, q);
    const rows = await listOwn(
      c.get('db'),
      c.get('keyHash'),
      { ...taskSpec, trash: q.deleted },
      page,
      taskFilters(q, account, page.sortColumn),
    );
    return c.json(page.page(c, rows, presentTask), 200);
  })
  .openapi(routes.get, handlers.get)
  .openapi(routes.create, handlers.create)
  .openapi(routes.update, handlers.update)
  .openapi(trash.remove, trashed.remove)
  .openapi(trash.restore, trashed.restore);
