import { DomainError, type FieldError } from '../../core/errors';
import { unsafeIntegerError, unsafeIntegers } from '../../core/json-numbers';
import { depthOf, MAX_DEPTH } from '../../core/json-paths';
import { FORM_TYPE, JSON_TYPE } from '../../core/media-types';
import { type Charset, charsetOf, decodeText, formPairs, latinWarnings } from './charset';
import { formObject } from './form-body';

/** What ingest reads, as its refusals and the route's description name it. */
export const ACCEPTED_TYPES = 'application/json (or a +json type) or application/x-www-form-urlencoded';

/** A body parsed: the text to store, the object, and warnings of how it was read. */
type Parsed = { text: string; value: object; warnings: FieldError[] };

/**
 * The body as an object, with the text to store and a warning for bytes read as Windows-1252.
 * Refuses a content type ingest does not read (a sender's malformed request: routes/hooks.ts
 * answers it 400, as the seed's status set has no 415) and a body that its content type does not
 * describe.
 */
export function parseObject(contentType: string | undefined, body: Uint8Array): Parsed {
  const type = contentType ?? '';
  const isJson = JSON_TYPE.test(type);
  if (!isJson && !FORM_TYPE.test(type)) {
    throw new DomainError(
      'unsupported_media_type',
      `${type ? 'This Content-Type is not read here' : 'The request has no Content-Type'}: send ${ACCEPTED_TYPES}.`,
    );
  }
  const charset = charsetOf(type);
  const read: Omit<Parsed, 'text'> & { text?: string } = isJson
    ? parseJson(body, charset)
    : parseForm(body, charset);
  const { value, warnings } = read;
  // JSON.parse takes any depth (and a form's keys make any), but JSON.stringify does not.
  if (depthOf(value) > MAX_DEPTH) {
    throw new DomainError(
      'body_too_deep',
      `The body nests objects and arrays more than ${MAX_DEPTH} levels deep.`,
    );
  }
  // A form is stored as the object it makes (once its depth is known to fit JSON.stringify), so
  // processing reads a form event like a JSON one.
  return { text: read.text ?? JSON.stringify(value), value, warnings };
}

function parseJson(body: Uint8Array, charset: Charset): Parsed {
  const warnings: FieldError[] = [];
  const decoded = decodeText(body, charset);
  const text = decoded.text;
  if (decoded.guessed) warnings.push(...latinWarnings('body'));
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new DomainError('malformed_json', 'The Content-Type is JSON, but the body is not valid JSON.');
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new DomainError('body_not_object', 'The body must be a JSON object.');
  }
  // A lead is kept whatever its numbers, but one read rounded is said.
  warnings.push(...unsafeIntegers(text).map((found) => unsafeIntegerError(found, 'rounded')));
  return { text, value: parsed, warnings };
}

/** A form's object and warnings (its text is made once its depth is checked). */
function parseForm(body: Uint8Array, charset: Charset): Omit<Parsed, 'text'> {
  // `curl -d '{...}'` sends JSON labelled as a form; read as one, it would be a single odd key.
  if (/^\s*[[{]/.test(decodeText(body, 'windows-1252').text)) {
    throw new DomainError(
      'malformed_form',
      'The body looks like JSON but the Content-Type is application/x-www-form-urlencoded (what curl -d sends by default): send it with Content-Type: application/json.',
    );
  }
  const { pairs, guessed } = formPairs(body, charset);
  const form = formObject(new URLSearchParams(pairs));
  if ('error' in form) throw new DomainError('malformed_form', form.error);
  return { value: form.value, warnings: latinWarnings(guessed) };
}
