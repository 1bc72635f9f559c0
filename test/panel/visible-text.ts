import { EVENT_TYPES } from '../../src/core/event-types';
import {
  deliveryStatuses,
  endpointDisabledReasons,
  eventStatuses,
  webhookModes,
} from '../../src/core/statuses';
import { eventCodes } from '../../src/panel/labels';
import { actions } from '../../src/webhooks/actions';
import { MATCH_KEYS } from '../../src/webhooks/config/schema';
import { whenOps } from '../../src/webhooks/rules/config';
import { fieldTypes } from '../../src/webhooks/rules/fields';

// What a person reads on a panel page, and the API enum values in it that should have been labels.

const RAW: ReadonlySet<string> = new Set([
  ...eventStatuses,
  ...webhookModes,
  ...fieldTypes,
  ...whenOps,
  ...actions.map((m) => m.name),
  ...MATCH_KEYS,
  ...eventCodes,
  ...deliveryStatuses,
  ...endpointDisabledReasons,
  ...EVENT_TYPES,
]);

const ENTITIES: Record<string, string> = {
  '&quot;': '"',
  '&#39;': "'",
  '&lt;': '<',
  '&gt;': '>',
  '&amp;': '&',
};
const decode = (text: string) => text.replace(/&(quot|#39|lt|gt|amp);/g, (e) => ENTITIES[e] ?? e);

/**
 * What a person reads or hears on a page: its text outside <code>, <pre> and form values (data, not
 * labels), and the attributes a browser shows or announces.
 */
export function visibleTexts(html: string): string[] {
  const attrs = [...html.matchAll(/\s(?:aria-label|title|placeholder|label|alt|data-label)="([^"]*)"/g)].map(
    (m) => m[1] ?? '',
  );
  const body = html
    .replace(/<head>[\s\S]*?<\/head>/, '')
    .replace(/<(code|pre|textarea|script|style)\b[^>]*>[\s\S]*?<\/\1>/g, ' ')
    .split(/<[^>]*>/);
  return [...body, ...attrs].map(decode).filter((t) => t.trim() !== '');
}

/** The raw enum values in `texts`: a whole text or list item that is one, or a snake_case one anywhere. */
export function rawEnums(texts: string[]): string[] {
  const found = new Set<string>();
  for (const text of texts) {
    for (const part of text.split(/[,:;()\n]/)) if (RAW.has(part.trim())) found.add(part.trim());
    for (const [word] of text.matchAll(/\b[a-z]+(?:_[a-z]+)+\b/g)) if (RAW.has(word)) found.add(word);
  }
  return [...found];
}

/**
 * Developer wording left in a Portuguese page: a dot path "no JSON", the format letters YYYY (AAAA
 * in Portuguese), the type's API name (`tipo date`), zod's "Esperado …", a raw IANA zone name.
 */
const LEFTOVERS: RegExp[] = [
  /caminho com pontos/i,
  /\bYYYY\b/,
  /\btipo (date|string|number|boolean|phone|email|cnpj)\b/i,
  /\bEsperad[oa]s? /,
  /\b(America|Europe|Asia|Africa|Australia|Pacific|Atlantic|Etc)\/[A-Za-z_]+/,
  /\b(date|string|datetime)\b/,
];

/** The texts of `texts` that hold developer wording a Portuguese reader should not see. */
export function ptLeftovers(texts: string[]): string[] {
  return texts.filter((text) => LEFTOVERS.some((pattern) => pattern.test(text)));
}
