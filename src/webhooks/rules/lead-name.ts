import { leaves, valueAt } from '../../core/json-paths';
import type { FieldMapping, Target } from './config';
import { suggestTargets } from './target-guess';

// Who an event was about, for the event list: from its own body, so an event stays named when the
// mapping changes later (a key renamed, a target moved) and a refused call is named by what it sent.

const WHO: Target[] = ['contact.name', 'contact.phone', 'contact.email'];

/** A refused call's kept text (its first 4 KiB) as JSON when it parses whole, else undefined. */
export function keptBody(text: string | null | undefined): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

const shown = (value: unknown) =>
  typeof value === 'string' || typeof value === 'number' ? String(value).slice(0, 100) : undefined;

/**
 * The lead's name, phone and email an event's body holds, in that order: each from the field the
 * mapping sends to it, else from the key or value that names it (`suggestTargets`: `nome`,
 * `telefone`, a value with `@`), so renaming a field's key does not blank older events.
 */
export function leadOf(fields: readonly FieldMapping[], body: unknown): string[] {
  if (body === null || typeof body !== 'object') return [];
  const guessed = new Map(
    suggestTargets(leaves(body, 100)).flatMap((g) => (g.target ? [[g.target, g.key] as const] : [])),
  );
  return WHO.flatMap((target) => {
    const key = fields.find((f) => f.target === target)?.key;
    const value =
      shown(key === undefined ? undefined : valueAt(body, key)) ??
      shown(valueAtGuess(body, guessed.get(target)));
    return value === undefined || value === '' ? [] : [value];
  });
}

const valueAtGuess = (body: unknown, key: string | undefined) =>
  key === undefined ? undefined : valueAt(body, key);
