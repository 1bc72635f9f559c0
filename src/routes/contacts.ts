import {
  Contact,
  ContactCreateRequest,
  ContactQuery,
  ContactRemoveQuery,
  ContactUpdateRequest,
  contactSorts,
} from '../contracts/contacts';
import { eraseContact } from '../db/erasure';
import { listOwn } from '../db/own';
import { contacts } from '../db/schema';
import { ownHandlers, trashHandlers } from '../http/handlers';
import { router } from '../http/openapi';
import { keyset } from '../http/pagination';
import { resourceRoutes, trashRoutes } from '../http/routes';
import {
  type ContactRow,
  contactFilters,
  contactSearch,
  contactSpec,
  presentContact,
} from '../model/contacts';
import { dealSpec } from '../model/deals';
import { keyedWrite } from '../model/keyed-write';
import { resources } from '../model/resources';

const routes = resourceRoutes(
  { ...resources.contacts.names },
  { resource: Contact, query: ContactQuery, create: ContactCreateRequest, update: ContactUpdateRequest },
);

const handlers = ownHandlers('/v1/contacts', contactSpec, presentContact, keyedWrite(resources.contacts));
const trash = trashRoutes(
  {
    ...resources.contacts.names,
    removeNote:
      'Its deals stay and keep its id in `contact_id` until it is purged (then null). With `erase=true` (LGPD), the contact, live or in the trash, is deleted for good at once with every copy of its personal data: not restorable.',
  },
  { resource: Contact, remove: ContactRemoveQuery },
);
const trashed = trashHandlers(contactSpec, presentContact);

export const contactsRouter = router()
  .openapi(routes.list, async (c) => {
    const q = c.req.valid('query');
    const page = keyset<ContactRow>(contacts, contactSorts, q);
    const rows = await listOwn(
      c.get('db'),
      c.get('keyHash'),
      { ...contactSpec, trash: q.deleted },
      page,
      contactFilters(q, page.sortColumn),
      contactSearch(q),
    );
    return c.json(page.page(c, rows, presentContact), 200);
  })
  .openapi(routes.get, handlers.get)
  .openapi(routes.create, handlers.create)
  .openapi(routes.update, handlers.update)
  .openapi(trash.remove, async (c) => {
    if (!c.req.valid('query').erase) return trashed.remove(c);
    await eraseContact(c.get('db'), c.get('keyHash'), c.req.valid('param').id, {
      contact: contactSpec.journal,
      deal: dealSpec.journal,
    });
    return c.body(null, 204);
  })
  .openapi(trash.restore, trashed.restore);
