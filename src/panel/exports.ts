import type { KeyGrant } from '../db/key-grant';
import type { C } from './page';

// The export button of each list of records the panel shows: `/v1/<resource>/export` itself (its
// filters, sort, CSV and Excel formats), run with the session's key. The Worker hands the panel
// that function (src/index.ts), as it hands it `deliver`: the panel does not import the routes.

export const EXPORTED = ['companies', 'contacts', 'deals', 'tasks'] as const;
export type Exported = (typeof EXPORTED)[number];

/** `GET /v1/<resource>/export` with the request's query, answered as the API answers it. */
export type Exporter = (resource: Exported, c: C, key: KeyGrant) => Promise<Response>;

export const exportList =
  (exporter: Exporter, resource: Exported) =>
  (c: C, key: KeyGrant): Promise<Response> =>
    exporter(resource, c, key);

/** The link of a list's export, with the list's filter; `excel` for pt-BR Excel. */
export const exportHref = (resource: Exported, filter: string, excel = false) =>
  `/panel/export/${resource}?${filter}${excel ? '&format=excel' : ''}`;
