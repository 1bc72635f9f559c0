/**
 * What a browser submits for a form of a page: its controls in document order, each value as the
 * browser holds it after parsing the HTML (entities decoded, a textarea's first line break eaten,
 * line breaks stripped from a text box) and encoding it (every textarea line break as CRLF).
 */

const ENTITY = /&(?:#(\d+)|#x([0-9a-f]+)|(amp|lt|gt|quot|apos|#39));/gi;
const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", '#39': "'" };

const decode = (text: string): string =>
  text.replace(ENTITY, (_, dec: string, hex: string, name: string) =>
    dec
      ? String.fromCodePoint(Number(dec))
      : hex
        ? String.fromCodePoint(Number.parseInt(hex, 16))
        : (NAMED[name.toLowerCase()] ?? ''),
  );

const attributes = (source: string): Map<string, string> => {
  const out = new Map<string, string>();
  for (const m of source.matchAll(/([a-z][\w.-]*)(?:="([^"]*)")?/gi)) {
    out.set((m[1] ?? '').toLowerCase(), decode(m[2] ?? ''));
  }
  return out;
};

type Entries = [name: string, value: string][];

/** The controls of the first `<form action="{action}">` of `html`, as a browser would submit them. */
export function submitForm(html: string, action: string): Entries {
  const start = html.indexOf(`<form method="post" action="${action}"`);
  if (start < 0) throw new Error(`no form posting to ${action}`);
  // A template's controls are no part of the form until a script puts them in.
  const form = html
    .slice(start, html.indexOf('</form>', start))
    .replace(/<template\b[\s\S]*?<\/template>/g, '');
  const entries: Entries = [];
  const tags = /<(input|select|textarea)\b([^>]*)>/gi;
  for (let m = tags.exec(form); m; m = tags.exec(form)) {
    const tag = (m[1] ?? '').toLowerCase();
    const attrs = attributes(m[2] ?? '');
    const name = attrs.get('name');
    const after = m.index + m[0].length;
    if (tag === 'textarea') {
      const end = form.indexOf('</textarea>', after);
      tags.lastIndex = end;
      const value = decode(form.slice(after, end)).replace(/^\n/, '');
      if (name) entries.push([name, value.replace(/\r\n|\r|\n/g, '\r\n')]);
    } else if (tag === 'select') {
      const end = form.indexOf('</select>', after);
      tags.lastIndex = end;
      const options = [...form.slice(after, end).matchAll(/<option\b([^>]*)>/gi)].map((o) =>
        attributes(o[1] ?? ''),
      );
      const chosen = options.filter((o) => o.has('selected'));
      const sent = attrs.has('multiple')
        ? chosen
        : [chosen.at(-1) ?? options[0]].filter((o) => o !== undefined);
      if (name) for (const o of sent) entries.push([name, o.get('value') ?? '']);
    } else {
      const type = attrs.get('type') ?? 'text';
      if (!name || ['submit', 'button'].includes(type)) continue;
      if ((type === 'checkbox' || type === 'radio') && !attrs.has('checked')) continue;
      const value = attrs.get('value') ?? (type === 'checkbox' ? 'on' : '');
      entries.push([name, type === 'text' ? value.replace(/[\r\n]/g, '') : value]);
    }
  }
  return entries;
}

/** Entries as the form option of the panel test helpers: repeated names keep their order. */
export function asForm(entries: Entries): Record<string, string[]> {
  const form = Object.create(null) as Record<string, string[]>;
  for (const [name, value] of entries) form[name] = [...(form[name] ?? []), value];
  return form;
}
