import { createRoute, z } from '@hono/zod-openapi';
import { Account, AccountUpdate } from '../contracts/account';
import { jsonGuard } from '../http/middleware';
import { bodyErrors, bookmarkParam, errorResponses, jsonBody, jsonContent, router } from '../http/openapi';
import { getAccount, updateAccount } from '../model/account';

const tags = ['Account'];
// `account:read` and `account:update`, from the method and path (src/core/scopes.ts).
const security = [{ bearerAuth: [] }];
const Answer = z.object({ data: Account }).openapi('AccountResponse');

const getRoute = createRoute({
  method: 'get',
  path: '/',
  operationId: 'getAccount',
  tags,
  security,
  summary: "The account's settings: its name and time zone",
  description:
    'The time zone is the one a date with no time stands for a day in (webhook `date` fields, and the due dates computed from them).',
  parameters: [bookmarkParam],
  responses: { 200: jsonContent(Answer, 'The settings'), ...errorResponses(400, 429) },
});

const putRoute = createRoute({
  method: 'put',
  path: '/',
  operationId: 'updateAccount',
  tags,
  security,
  summary: "Change the account's settings (its time zone)",
  description:
    'Changes what the body sends; `{}` changes nothing. A zone that is not an IANA name is a 422 `validation_failed` naming `time_zone`. Events processed after the change use the new zone; tasks already written keep their due dates.',
  middleware: [jsonGuard] as const,
  request: { body: jsonBody(AccountUpdate) },
  responses: { 200: jsonContent(Answer, 'The settings now'), ...errorResponses(...bodyErrors, 429) },
});

export const accountRouter = router()
  .openapi(getRoute, async (c) => c.json({ data: await getAccount(c.get('db'), c.get('keyHash')) }, 200))
  .openapi(putRoute, async (c) =>
    c.json({ data: await updateAccount(c.get('db'), c.get('keyHash'), c.req.valid('json')) }, 200),
  );
