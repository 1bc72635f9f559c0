import { type SQL, sql } from 'drizzle-orm';

// SQL that tells whether a stored text names a contact, the way ingest reads a sender's values: a
// text is their email once trimmed as JS trims (tabs and Unicode spaces too, unlike SQLite's
// trim()) and lower-cased, and their phone once normalised as src/core/phone.ts does. The
// contact is the row alias `c`. Two constraints shape it: only literals are written in (D1 binds
// at most 100 parameters per statement, and these expressions repeat), and no expression nests
// deep (SQLite refuses one over 100 levels, subqueries included), so a set of characters is
// matched with one glob class or instr(), never with one nested replace() per character.

/** The characters JS `trim()` strips and `\s` matches (WhiteSpace and LineTerminator). */
const JS_SPACES = [
  9, 10, 11, 12, 13, 32, 160, 5760, 8192, 8193, 8194, 8195, 8196, 8197, 8198, 8199, 8200, 8201, 8202, 8232,
  8233, 8239, 8287, 12288, 65279,
];
const spaces = sql.raw(`char(${JS_SPACES.join(', ')})`);

/** Longer than this, a text is not read as a phone (the longest, `00` + 15 digits, is 17 digits). */
const PHONE_SPAN = 64;
const PHONE_POSITIONS = sql.raw(`'[${Array.from({ length: PHONE_SPAN }, (_, i) => i).join(',')}]'`);

/** The phone text `t` means to normalizePhone, in E.164 when it is one (else text that is not). */
export function phoneOf(t: SQL): SQL {
  // Most texts are decided by a glob: one with a letter is no phone, one of digits, `+` and ASCII
  // separators loses the separators. Only the rest (tabs, Unicode spaces) is read one character at
  // a time, and is no phone when a character is no digit, `+` or separator normalizePhone drops
  // (instr, not a glob class: D1 caps a glob pattern's length).
  const ascii = ['(', ')', '.', '-'].reduce(
    (acc, c) => sql`replace(${acc}, '${sql.raw(c)}', '')`,
    sql`replace(${t}, ' ', '')`,
  );
  const allowed = sql`'0123456789+().-' || ${spaces}`;
  const slow = sql`(select case when sum(instr(${allowed}, ch) = 0) > 0 then null
      else group_concat(case when ch glob '[0-9+]' then ch end, '') end
    from (select substr(${t}, p.value + 1, 1) as ch from json_each(${PHONE_POSITIONS}) p where p.value < length(${t})))`;
  const digits = sql`case when length(${t}) > ${sql.raw(String(PHONE_SPAN))} then null
    when ${t} not glob '*[^0-9+(). -]*' then ${ascii}
    when ${t} glob '*[a-zA-Z@]*' then null
    else ${slow} end`;
  // International (`+`, `00`), then national: one leading 0 dropped, then a leading 55 before 10
  // or 11 digits taken as the country code.
  return sql`(select case
      when d glob '+*' then d
      when d glob '00*' then '+' || substr(d, 3)
      when d glob '055*' and length(d) in (13, 14) then '+' || substr(d, 2)
      when d glob '0*' then '+55' || substr(d, 2)
      when d glob '55*' and length(d) in (12, 13) then '+' || d
      else '+55' || d end
    from (select ${digits} as d))`;
}

/**
 * Whether free text `t` may hold a word that names contact `c`: it holds the email, or the last
 * four digits of the phone. A cheap test before cutting a text into words, one character at a time.
 */
export const mayName = (t: SQL): SQL =>
  sql`(instr(lower(${t}), c.email_norm) > 0 or instr(${t}, substr(c.phone, -4)) > 0)`;

/** Whether text `t`, as a whole, is the email or the phone of contact `c`. */
export const names = (t: SQL): SQL =>
  sql`(lower(trim(${t}, ${spaces})) = c.email_norm
    or (c.phone is not null and ${t} not glob '*[a-zA-Z@]*' and ${phoneOf(t)} = c.phone))`;

/** Whether json_tree row `n` (a value, or an object member's key) names contact `c`. */
export const nodeNames = (n: string): SQL => {
  const node = (column: string) => sql.raw(`${n}.${column}`);
  return sql`((${node('type')} = 'text' and ${names(node('value'))})
    or (${node('type')} = 'integer' and ${phoneOf(sql`cast(${node('value')} as text)`)} = c.phone)
    or (typeof(${node('key')}) = 'text' and ${names(node('key'))}))`;
};

/** A JSON document to walk with json_tree: `doc`, or JSON `null` when it is not valid JSON. */
export const walkable = (doc: SQL): SQL => sql`case when json_valid(${doc}) then ${doc} else 'null' end`;

/** Where a kept body's values end: JSON strings and numbers, form keys and values. */
export const VALUE_CUTS = sql.raw(`'"&=[]{}:,'`);
/** Where the words of free text end (a header, a problem's detail), as well. */
export const WORD_CUTS = sql`${VALUE_CUTS} || '()<>;' || ${spaces}`;

/** A JSON array of `length(t)` zeros: json_each over it walks the positions of text `t`. */
const positions = (t: SQL): SQL =>
  sql`'[' || substr(replace(hex(zeroblob(length(${t}))), '00', ',0'), 2) || ']'`;

/**
 * The pieces of text `t` cut at every character of `cuts`, as a JSON array of strings for
 * json_each: built one character at a time, each cut becoming `","`.
 */
export function pieces(t: SQL, cuts: SQL): SQL {
  const ch = sql`substr(${t}, p.key + 1, 1)`;
  const piece = sql`case when instr(${cuts}, ${ch}) > 0 then '","'
    else substr(json_quote(${ch}), 2, length(json_quote(${ch})) - 2) end`;
  return sql`'["' || (select group_concat(${piece}, '') from json_each(${positions(t)}) p) || '"]'`;
}

/**
 * A piece of a JSON text as JSON.parse reads it inside a string, every escape decoded (`\u0040`,
 * `\t`, `\/`); as written when it holds none, or is no string's content.
 */
const jsonDecoded = (t: SQL): SQL => {
  const quoted = sql`'"' || ${t} || '"'`;
  return sql`case when instr(${t}, '\\') > 0 and json_valid(${quoted}) then json_extract(${quoted}, '$') else ${t} end`;
};

const HEX_PAIR = sql.raw(`'[0-9a-fA-F][0-9a-fA-F]'`);

/**
 * A piece of a form as URLSearchParams reads it: `+` a space, then every percent-escape decoded
 * (`%6D`, `%C3%A3`), one character at a time; a `%` without two hex digits after it stays.
 */
const formDecoded = (t: SQL): SQL => {
  const u = sql`replace(${t}, '+', ' ')`;
  const at = (from: SQL, n: number) => sql`substr(${u}, ${from}, ${sql.raw(String(n))})`;
  // Character k (0-based) is `substr(u, k + 1, 1)`: an escape's `%` gives its two hex digits as a
  // byte, the digits give nothing, any other character its UTF-8 bytes.
  const byte = sql`case
      when ${at(sql`k + 1`, 1)} = '%' and ${at(sql`k + 2`, 2)} glob ${HEX_PAIR} then ${at(sql`k + 2`, 2)}
      when k >= 1 and ${at(sql`k`, 1)} = '%' and ${at(sql`k + 1`, 2)} glob ${HEX_PAIR} then ''
      when k >= 2 and ${at(sql`k - 1`, 1)} = '%' and ${at(sql`k`, 2)} glob ${HEX_PAIR} then ''
      else hex(${at(sql`k + 1`, 1)}) end`;
  return sql`case when instr(${t}, '%') = 0 then ${u}
    else (select cast(unhex(group_concat(${byte}, '')) as text)
      from (select p.key as k from json_each(${positions(u)}) p)) end`;
};

/**
 * Every way ingest may read piece `t` of a kept body, as a JSON array for json_each: as written,
 * as the content of a JSON string, and as a form's key or value.
 */
export const readings = (t: SQL): SQL => sql`json_array(${t}, ${jsonDecoded(t)}, ${formDecoded(t)})`;
