import {
  Company,
  CompanyCreateRequest,
  CompanyQuery,
  CompanyUpdateRequest,
  companySorts,
} from '../contracts/companies';
import { listOwn } from '../db/own';
import { companies } from '../db/schema';
import { ownHandlers, trashHandlers } from '../http/handlers';
import { router } from '../http/openapi';
import { keyset } from '../http/pagination';
import { resourceRoutes, trashRoutes } from '../http/routes';
import {
  type CompanyRow,
  companyFilters,
  companySearch,
  companySpec,
  presentCompany,
} from '../model/companies';
import { keyedWrite } from '../model/keyed-write';
import { resources } from '../model/resources';

const routes = resourceRoutes(
  { ...resources.companies.names, conflicts: true },
  { resource: Company, query: CompanyQuery, create: CompanyCreateRequest, update: CompanyUpdateRequest },
);

const handlers = ownHandlers('/v1/companies', companySpec, presentCompany, keyedWrite(resources.companies));
const trash = trashRoutes(
  {
    ...resources.companies.names,
    removeNote:
      'Its contacts and deals stay, and keep its id in `company_id` until it is purged (then null); it no longer counts, and cannot be referenced by new writes. Its CNPJ stays taken until then: a webhook event with that CNPJ restores it.',
  },
  { resource: Company },
);
const trashed = trashHandlers(companySpec, presentCompany);

export const companiesRouter = router()
  .openapi(routes.list, async (c) => {
    const q = c.req.valid('query');
    const page = keyset<CompanyRow>(companies, companySorts, q);
    const rows = await listOwn(
      c.get('db'),
      c.get('keyHash'),
      { ...companySpec, trash: q.deleted },
      page,
      companyFilters(q, page.sortColumn),
      companySearch(q),
    );
    return c.json(page.page(c, rows, presentCompany), 200);
  })
  .openapi(routes.get, handlers.get)
  .openapi(routes.create, handlers.create)
  .openapi(routes.update, handlers.update)
  .openapi(trash.remove, trashed.remove)
  .openapi(trash.restore, trashed.restore);
