// `{{ key }}`: a declared field's dot path, spaces around it allowed.
const PLACEHOLDER = /\{\{\s*([^{}\s]+)\s*\}\}/g;

/** The keys a template refers to. */
export const templateKeys = (template: string): string[] =>
  [...template.matchAll(PLACEHOLDER)].map((match) => match[1] ?? '');

/** The template with each placeholder replaced by its value (absent values are empty), trimmed. */
export const render = (template: string, value: (key: string) => string | number | boolean | undefined) =>
  template.replace(PLACEHOLDER, (_, key: string) => String(value(key) ?? '')).trim();
