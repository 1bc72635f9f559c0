import { Deal, DealCreateRequest, DealQuery, DealUpdateRequest, dealSorts } from '../contracts/deals';
import { listOwn } from '../db/own';
import { deals } from '../db/schema';
import { ownHandlers, trashHandlers } from '../http/handlers';
import { router } from '../http/openapi';
import { keyset } from '../http/pagination';
import { resourceRoutes, trashRoutes } from '../http/routes';
import { type DealRow, dealFilters, dealSpec, dealTrash, presentDeal } from '../model/deals';
import { keyedWrite } from '../model/keyed-write';
import { resources } from '../model/resources';

const routes = resourceRoutes(
  { ...resources.deals.names },
  { resource: Deal, query: DealQuery, create: DealCreateRequest, update: DealUpdateRequest },
);

const handlers = ownHandlers('/v1/deals', dealSpec, presentDeal, keyedWrite(resources.deals));

const trash = trashRoutes(
  {
    ...resources.deals.names,
    removeNote:
      'Its tasks go to the trash with it, and come back with its restore. Contacts and companies are not touched.',
  },
  { resource: Deal },
);
const trashed = trashHandlers(dealTrash, presentDeal);

export const dealsRouter = router()
  .openapi(routes.list, async (c) => {
    const q = c.req.valid('query');
    const page = keyset<DealRow>(deals, dealSorts, q);
    const rows = await listOwn(
      c.get('db'),
      c.get('keyHash'),
      { ...dealSpec, trash: q.deleted },
      page,
      dealFilters(q, page.sortColumn),
    );
    return c.json(page.page(c, rows, presentDeal), 200);
  })
  .openapi(routes.get, handlers.get)
  .openapi(routes.create, handlers.create)
  .openapi(routes.update, handlers.update)
  .openapi(trash.remove, trashed.remove)
  .openapi(trash.restore, trashed.restore);
