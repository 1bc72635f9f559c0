import type { Lang } from './i18n';
import { actionLabel, kindLabel, matchKeyLabel, opLabel, targetLabel, typeLabel } from './labels';

// The API's rule messages (config checks, ingest errors and warnings, date formats) in the page's
// language, at render time. They are matched by their English text, whose parameters (a key, a
// target, a type) each pattern captures: /v1 answers keep their bytes, and events stored before
// this module existed (which hold only the English message) read the same. Each parameter is
// plain text: the view escapes the whole message. A message no pattern knows is shown as it is.

type P = { lang: Lang };
type Say = (p: P, m: string[]) => string;
type Rule = { re: RegExp; pt: Say; en: Say };

const q = (s: string | undefined) => `“${s ?? ''}”`;
const target = (p: P, t: string | undefined) => {
  const label = targetLabel(p, t ?? '');
  return label === t ? q(t) : `${label} (${t})`;
};
const types = (p: P, list: string | undefined, or: string) =>
  (list ?? '')
    .split(' or ')
    .map((t) => typeLabel(p, t))
    .join(or);

const config: Rule[] = [
  {
    re: /^The key "(.*)" is declared twice\.$/s,
    pt: (_, m) => `A chave ${q(m[1])} foi declarada duas vezes.`,
    en: (_, m) => `The key ${q(m[1])} is declared twice.`,
  },
  {
    re: /^Only a field of type date takes formats\.$/,
    pt: (p) => `Só um campo do tipo ${typeLabel(p, 'date')} aceita formatos.`,
    en: (p) => `Only a field of type ${typeLabel(p, 'date')} takes formats.`,
  },
  {
    re: /^Only a field of type number or boolean takes a locale\.$/,
    pt: (p) =>
      `Só um campo do tipo ${typeLabel(p, 'number')} ou ${typeLabel(p, 'boolean')} aceita o formato brasileiro.`,
    en: (p) =>
      `Only a field of type ${typeLabel(p, 'number')} or ${typeLabel(p, 'boolean')} takes the Brazilian format.`,
  },
  {
    re: /^Another field already fills (.*)\.$/s,
    pt: (p, m) => `Outro campo já preenche ${target(p, m[1])}.`,
    en: (p, m) => `Another field already fills ${target(p, m[1])}.`,
  },
  {
    re: /^(\S+) takes a field of type (.+)\.$/s,
    pt: (p, m) => `${target(p, m[1])} aceita um campo do tipo ${types(p, m[2], ' ou ')}.`,
    en: (p, m) => `${target(p, m[1])} takes a field of type ${types(p, m[2], ' or ')}.`,
  },
  {
    re: /^"(.*)" is not a declared field\.$/s,
    pt: (_, m) => `${q(m[1])} não é um campo declarado.`,
    en: (_, m) => `${q(m[1])} is not a declared field.`,
  },
  {
    re: /^"(.*)" is a (\w+): compare it with a (\w+)\.$/s,
    pt: (p, m) =>
      `${q(m[1])} é do tipo ${typeLabel(p, m[2] ?? '')}: compare com um valor do tipo ${kindLabel(p, m[3] ?? '')}.`,
    en: (p, m) =>
      `${q(m[1])} is of type ${typeLabel(p, m[2] ?? '')}: compare it with a ${kindLabel(p, m[3] ?? '')}.`,
  },
  {
    re: /^Only one (\w+)\.$/,
    pt: (p, m) => `Só pode haver uma ação ${q(actionLabel(p, m[1] ?? ''))}.`,
    en: (p, m) => `Only one ${q(actionLabel(p, m[1] ?? ''))} action.`,
  },
  {
    re: /^create_deal must come after (\w+)\.$/,
    pt: (p, m) =>
      `${q(actionLabel(p, 'create_deal'))} precisa vir depois de ${q(actionLabel(p, m[1] ?? ''))}.`,
    en: (p, m) => `${q(actionLabel(p, 'create_deal'))} must come after ${q(actionLabel(p, m[1] ?? ''))}.`,
  },
  {
    re: /^Give a name template or map a field to deal\.name\.$/,
    pt: (p) => `Dê um modelo de nome ou ligue um campo a ${target(p, 'deal.name')}.`,
    en: (p) => `Give a name template or map a field to ${target(p, 'deal.name')}.`,
  },
  {
    re: /^A create_task needs a create_deal before it\.$/,
    pt: (p) => `${q(actionLabel(p, 'create_task'))} precisa de um ${q(actionLabel(p, 'create_deal'))} antes.`,
    en: (p) => `${q(actionLabel(p, 'create_task'))} needs a ${q(actionLabel(p, 'create_deal'))} before it.`,
  },
  {
    re: /^Expected received_at or a field of type date\.$/,
    pt: (p) => `Use received_at (a hora do recebimento) ou um campo do tipo ${typeLabel(p, 'date')}.`,
    en: (p) => `Use received_at (the time received) or a field of type ${typeLabel(p, 'date')}.`,
  },
  {
    re: /^No field is mapped to (\S+)\.$/,
    pt: (p, m) => `Nenhum campo está ligado a ${target(p, m[1])}.`,
    en: (p, m) => `No field is mapped to ${target(p, m[1])}.`,
  },
  {
    re: /^equals, not_equals and contains need a value\.$/,
    pt: (p) =>
      `${['equals', 'not_equals', 'contains'].map((o) => q(opLabel(p, o))).join(', ')} precisam de um valor.`,
    en: (p) =>
      `${['equals', 'not_equals', 'contains'].map((o) => q(opLabel(p, o))).join(', ')} need a value.`,
  },
  {
    re: /^No (\w+) (\d+) in this account\.$/,
    pt: (_, m) => `${m[1] === 'user' ? 'Nenhum usuário' : `Nenhum registro (${m[1]})`} ${m[2]} nesta conta.`,
    en: (_, m) => `No ${m[1]} ${m[2]} in this account.`,
  },
  {
    re: /^Invalid input: expected (\w+), received (\w+)$/,
    pt: (p, m) => `Valor inválido: esperado ${kindLabel(p, m[1] ?? '')}.`,
    en: (p, m) => `Invalid value: expected ${kindLabel(p, m[1] ?? '')}.`,
  },
  {
    re: /^Too (small|big): expected (\w+) to (?:have|be) ([<>]=?)(\d+)(?: characters| items)?$/,
    pt: (_, m) => `${m[1] === 'small' ? 'Pequeno' : 'Grande'} demais: o limite é ${m[3]}${m[4]}.`,
    en: (_, m) => `Too ${m[1]}: the limit is ${m[3]}${m[4]}.`,
  },
  // The words of src/contracts/field-errors.ts.
  {
    re: /^Expected (text|a number|a whole number|true or false|a JSON object|a list) \(.*\)\.$/,
    pt: (_, m) =>
      `Esperado ${({ text: 'um texto', 'a number': 'um número', 'a whole number': 'um número inteiro', 'true or false': 'verdadeiro ou falso', 'a JSON object': 'um objeto JSON', 'a list': 'uma lista' } as Record<string, string>)[m[1] ?? ''] ?? m[1]}.`,
    en: (_, m) => `Expected ${m[1]}.`,
  },
  {
    re: /^Must be at (most|least) (\d+) (character|characters|item|items)\.$/,
    pt: (_, m) =>
      `No ${m[1] === 'most' ? 'máximo' : 'mínimo'} ${m[2]} ${m[3]?.startsWith('char') ? 'caracteres' : 'itens'}.`,
    en: (_, m) => `Must be at ${m[1]} ${m[2]} ${m[3]}.`,
  },
  {
    re: /^Must be (\d+) or (less|more)\.$/,
    pt: (_, m) => `Deve ser ${m[1]} ou ${m[2] === 'less' ? 'menos' : 'mais'}.`,
    en: (_, m) => `Must be ${m[1]} or ${m[2]}.`,
  },
  {
    re: /^Expected one of: (.*)\.$/s,
    pt: (_, m) => `Esperado um destes: ${m[1]}.`,
    en: (_, m) => `Expected one of: ${m[1]}.`,
  },
  {
    re: /^This field is required\.$/,
    pt: () => 'Este campo é obrigatório.',
    en: () => 'This field is required.',
  },
];

const RECORDS: Readonly<Record<string, string>> = {
  contact: 'contato',
  deal: 'negócio',
  company: 'empresa',
  task: 'tarefa',
};

/** Why an action did not run, in the words of src/webhooks/rules/flows.ts and the action modules. */
const reasons: [RegExp, string, string][] = [
  [
    /^no deal was created before it$/,
    'nenhum negócio foi criado antes dela',
    'no deal was created before it',
  ],
  [/^the event has no CNPJ$/, 'o evento não tem CNPJ', 'the event has no CNPJ'],
  [
    /^no company has this CNPJ, and the event has no company name to create one with$/,
    'nenhuma empresa tem este CNPJ, e o evento não tem nome de empresa para criar uma',
    'no company has this CNPJ, and the event has no company name to create one with',
  ],
];

const reasonText = (p: P, reason: string) => {
  const found = reasons.find(([re]) => re.test(reason));
  return found ? found[p.lang === 'en' ? 2 : 1] : reason;
};

/** What the queue's run of the flows says of an event: a step skipped or run in part, a failure. */
const runs: Rule[] = [
  {
    re: /^(\w+) did not run: (.*)\.$/s,
    pt: (p, m) => `${q(actionLabel(p, m[1] ?? ''))} não rodou: ${reasonText(p, m[2] ?? '')}.`,
    en: (p, m) => `${q(actionLabel(p, m[1] ?? ''))} did not run: ${reasonText(p, m[2] ?? '')}.`,
  },
  {
    re: /^The event has no usable "(.*)": the task was created without a due date\.$/s,
    pt: (_, m) => `O evento não tem um ${q(m[1])} utilizável: a tarefa foi criada sem prazo.`,
    en: (_, m) => `The event has no usable ${q(m[1])}: the task was created without a due date.`,
  },
  {
    re: /^contact\.name: needed to create a contact, and the event has no name, email or phone to name it after/,
    pt: (p) =>
      `${target(p, 'contact.name')}: necessário para criar um contato, e o evento não tem nome, e-mail nem telefone para nomeá-lo (nenhum contato existente coincidiu).`,
    en: (p) =>
      `${target(p, 'contact.name')}: needed to create a contact, and the event has no name, email or phone to name it after (no existing contact matched).`,
  },
  {
    re: /^The event has no contact name and no existing contact matched: the new contact is named after its (\w+), (.*)\.$/s,
    pt: (p, m) =>
      `O evento não tem nome de contato e nenhum contato existente coincidiu: o novo contato leva o ${matchKeyLabel(p, m[1] ?? '').toLowerCase()}, ${m[2]}.`,
    en: (p, m) =>
      `The event has no contact name and no existing contact matched: the new contact is named after its ${matchKeyLabel(p, m[1] ?? '').toLowerCase()}, ${m[2]}.`,
  },
  {
    re: /^Left out of the (\w+): it has (\d+) custom fields already, the most it may have\.$/,
    pt: (_, m) =>
      `Ignorado no registro (${RECORDS[m[1] ?? ''] ?? m[1]}): ele já tem ${m[2]} campos personalizados, o máximo.`,
    en: (_, m) => `Left out of the ${m[1]}: it has ${m[2]} custom fields already, the most it may have.`,
  },
  {
    re: /^(.*) (The round robin went on without them\.|The (\w+) ran without an owner\.)$/s,
    pt: (p, m) =>
      `${sentences(p, m[1] ?? '')} ${m[3] ? `${q(actionLabel(p, m[3]))} rodou sem responsável.` : 'O rodízio seguiu sem eles.'}`,
    en: (p, m) =>
      `${sentences(p, m[1] ?? '')} ${m[3] ? `${q(actionLabel(p, m[3]))} ran without an owner.` : 'The round robin went on without them.'}`,
  },
];

/** The detail of a refused call (what the sender was answered) and of a refused query. */
const refusals: Rule[] = [
  ...(
    [
      [
        /^Some required fields are missing or invalid; see errors\.$/,
        'Faltam campos obrigatórios ou algum é inválido; veja os erros.',
        'Some required fields are missing or invalid; see the errors.',
      ],
      [
        /^The body must be a JSON object\.$/,
        'O corpo precisa ser um objeto JSON.',
        'The body must be a JSON object.',
      ],
      [
        /^The Content-Type is JSON, but the body is not valid JSON\.$/,
        'O Content-Type é JSON, mas o corpo não é um JSON válido.',
        'The Content-Type is JSON, but the body is not valid JSON.',
      ],
      [/^The body is not valid JSON\.$/, 'O corpo não é um JSON válido.', 'The body is not valid JSON.'],
      [
        /^The body broke off before its end; send the request again\.$/,
        'O corpo chegou cortado; envie o pedido de novo.',
        'The body broke off before its end; send the request again.',
      ],
      [
        /^The query string is not valid(?:; see errors)?\.$/,
        'Os filtros do endereço não são válidos.',
        'The filters in the address are not valid.',
      ],
      [
        /^The cursor is not one this API issued\.$/,
        'O link de página não é válido: volte à primeira página.',
        'The page link is not valid: go back to the first page.',
      ],
      [
        /^X-Signature is missing: this webhook has a secret\.$/,
        'Falta o X-Signature: este webhook tem um segredo.',
        'X-Signature is missing: this webhook has a secret.',
      ],
      [
        /^X-Signature must be "sha256=" followed by 64 hexadecimal digits\.$/,
        'O X-Signature precisa ser "sha256=" seguido de 64 dígitos hexadecimais.',
        'X-Signature must be "sha256=" followed by 64 hexadecimal digits.',
      ],
      [
        /^X-Timestamp is missing/,
        'Falta o X-Timestamp: envie a hora unix (segundos) que você assinou.',
        'X-Timestamp is missing: send the unix time (seconds) you signed.',
      ],
      [
        /^X-Timestamp must be unix time/,
        'O X-Timestamp precisa ser a hora unix em segundos inteiros: até 12 dígitos, não milissegundos.',
        'X-Timestamp must be unix time in whole seconds: up to 12 digits, not milliseconds.',
      ],
      [
        /^X-Signature does not match/,
        'O X-Signature não confere: precisa ser o HMAC-SHA256, com o segredo do webhook, de "<X-Timestamp>.<corpo>", o corpo exatamente como enviado.',
        'X-Signature does not match: it must be the HMAC-SHA256, under the webhook\'s secret, of "<X-Timestamp>.<raw body>", the body exactly as sent.',
      ],
    ] as const
  ).map(([re, pt, en]): Rule => ({ re, pt: () => pt, en: () => en })),
  {
    re: /^(\d+) more keys? named __proto__, prototype or constructor\.$/,
    pt: (_, m) =>
      `mais ${m[1]} ${m[1] === '1' ? 'chave chamada' : 'chaves chamadas'} __proto__, prototype ou constructor.`,
    en: (_, m) => `${m[1]} more key${m[1] === '1' ? '' : 's'} named __proto__, prototype or constructor.`,
  },
  {
    re: /^Not valid UTF-8: read as Windows-1252 \(Latin-1\)\. Declare the charset in the Content-Type, or send UTF-8\.(?: So were (\d+) more keys\.)?$/,
    pt: (_, m) =>
      `Não era UTF-8 válido: lido como Windows-1252 (Latin-1). Declare o charset no Content-Type ou envie UTF-8.${m[1] ? ` O mesmo com mais ${m[1]} chaves.` : ''}`,
    en: (_, m) =>
      `Not valid UTF-8: read as Windows-1252 (Latin-1). Declare the charset in the Content-Type, or send UTF-8.${m[1] ? ` So were ${m[1]} more keys.` : ''}`,
  },
  {
    re: /^X-Timestamp is (\d+) seconds (old|in the future); at most (\d+) either way\.$/,
    pt: (_, m) =>
      `O X-Timestamp está ${m[1]} segundos ${m[2] === 'old' ? 'no passado' : 'no futuro'}; o máximo é ${m[3]}.`,
    en: (_, m) => `X-Timestamp is ${m[1]} seconds ${m[2]}; at most ${m[3]} either way.`,
  },
  {
    re: /^The body is over (\d+) bytes\.$/,
    pt: (_, m) => `O corpo passa de ${m[1]} bytes.`,
    en: (_, m) => `The body is over ${m[1]} bytes.`,
  },
  {
    re: /^(?:This Content-Type is not read here|The request has no Content-Type): send (.*)\.$/s,
    pt: (_, m) => `Content-Type não aceito: envie ${m[1]}.`,
    en: (_, m) => `Content-Type not accepted: send ${m[1]}.`,
  },
];

/** Several messages joined by spaces, each translated. */
const sentences = (p: P, text: string) =>
  text
    .split(/(?<=\.) (?=[A-Z"])/)
    .map((one) => issueText(p, one))
    .join(' ');

const formats: Rule[] = [
  {
    re: /^(\w+) appears twice\.$/,
    pt: (_, m) => `${m[1]} aparece duas vezes.`,
    en: (_, m) => `${m[1]} appears twice.`,
  },
  {
    re: /^Unknown token "(.*)": use YYYY, MM, DD, HH, mm, ss and the separators .*$/s,
    pt: (_, m) =>
      `Parte desconhecida ${q(m[1])}: use YYYY, MM, DD, HH, mm, ss e os separadores / - . : , T ou um espaço.`,
    en: (_, m) =>
      `Unknown part ${q(m[1])}: use YYYY, MM, DD, HH, mm, ss and the separators / - . : , T or a space.`,
  },
  {
    re: /^A format needs YYYY, MM and DD; (\w+) is missing\.$/,
    pt: (_, m) => `Um formato precisa de YYYY, MM e DD; falta ${m[1]}.`,
    en: (_, m) => `A format needs YYYY, MM and DD; ${m[1]} is missing.`,
  },
  {
    re: /^(ss|mm) needs (mm|HH)\.$/,
    pt: (_, m) => `${m[1]} exige ${m[2]}.`,
    en: (_, m) => `${m[1]} needs ${m[2]}.`,
  },
];

/** What ingest expected of a value (`Expected <what>.`), by its English words. */
const expected: [RegExp, string, string][] = [
  [/^a finite number$/, 'um número finito', 'a finite number'],
  [
    /^a number, or a string of digits/,
    'um número, ou dígitos com no máximo um . ou , antes dos decimais',
    'a number',
  ],
  [
    /^no thousands separator/,
    'nenhum separador de milhar: 1.500 e 1,500 são ambíguos',
    'no thousands separator',
  ],
  // The Brazilian-format rules (a field with "Formato brasileiro" ticked) before the default ones.
  [
    /^a number written the Brazilian way/,
    'um número no formato brasileiro: 89.900,00, R$ 120.000, 1.234 (mil duzentos e trinta e quatro) ou 1,5',
    'a number written the Brazilian way: 89.900,00, R$ 120.000, 1.234 (one thousand two hundred thirty-four) or 1,5',
  ],
  [
    /^a boolean: sim, não/,
    'sim ou não: sim, não, s, n, true, false, 1 ou 0',
    'yes or no: sim, não, s, n, true, false, 1 or 0',
  ],
  [/^a boolean/, 'sim ou não: true, false, "true", "false", 1, 0, "1" ou "0"', 'yes or no (true or false)'],
  [
    /^a string for a whole number over 2\^53/,
    'texto para um número inteiro acima de 2^53',
    'text for a number over 2^53',
  ],
  [/^a string, number or boolean$/, 'texto, número ou sim/não', 'text, a number or yes/no'],
  [/^at most (\d+) characters$/, 'no máximo $1 caracteres', 'at most $1 characters'],
  [/^well-formed Unicode text$/, 'texto Unicode válido', 'well-formed Unicode text'],
  [
    /^a phone number as a string or a whole number$/,
    'um telefone como texto ou número inteiro',
    'a phone number',
  ],
  [
    /^a Brazilian or international \(\+CC\) phone number$/,
    'um telefone brasileiro ou internacional (+DDI)',
    'a phone number',
  ],
  [/^a date as a string$/, 'uma data como texto', 'a date as text'],
  [
    /^a real date as YYYY-MM-DD, an RFC 3339 date-time(.*)$/s,
    'uma data real como YYYY-MM-DD, data e hora RFC 3339$1',
    'a real date as YYYY-MM-DD, an RFC 3339 date-time$1',
  ],
  [/^an email address as a string$/, 'um e-mail como texto', 'an email address as text'],
  [/^a valid email address$/, 'um e-mail válido', 'a valid email address'],
  [/^a CNPJ as a string$/, 'um CNPJ como texto', 'a CNPJ as text'],
  [
    /^a dot path such as `lead\.phone`$/,
    'um caminho com pontos, como `lead.telefone`',
    'a dot path such as `lead.phone`',
  ],
  [/^one of (.*)$/s, 'um destes: $1', 'one of $1'],
  [
    /^a valid CNPJ/,
    'um CNPJ válido: 14 caracteres, puros ou como XX.XXX.XXX/XXXX-XX, com dígitos verificadores certos',
    'a valid CNPJ',
  ],
];

function expectation(p: P, what: string): string | undefined {
  for (const [re, pt, en] of expected) {
    const m = re.exec(what);
    // A pattern may name only the start of a long message: the whole message is its translation.
    if (m) return (p.lang === 'en' ? en : pt).replace(/\$(\d)/g, (_, i: string) => m[Number(i)] ?? '');
  }
  return undefined;
}

/** One rule message of the API in the page's language (itself when no pattern knows it). */
export function issueText(p: P, message: string): string {
  const left = /^Left out: (.*)$/s.exec(message);
  if (left) return `${p.lang === 'en' ? 'Left out' : 'Ignorado'}: ${issueText(p, left[1] ?? '')}`;
  const leftOf = /^Left out of the (contact|deal|company|task): (?!it has \d+ custom fields)(.*)$/s.exec(
    message,
  );
  if (leftOf)
    return p.lang === 'en'
      ? `Left out of the ${leftOf[1]}: ${issueText(p, leftOf[2] ?? '')}`
      : `Ignorado no registro (${RECORDS[leftOf[1] ?? ''] ?? leftOf[1]}): ${issueText(p, leftOf[2] ?? '')}`;
  const exp = /^Expected (.*)\.$/s.exec(message);
  const what = exp ? expectation(p, exp[1] ?? '') : undefined;
  if (what !== undefined) return `${p.lang === 'en' ? 'Expected' : 'Esperado'} ${what}.`;
  const reserved = /^"(.*)" is a reserved name \(as are .*\): use another key\.$/s.exec(message);
  if (reserved)
    return p.lang === 'en'
      ? `${q(reserved[1])} is a reserved name: use another key.`
      : `${q(reserved[1])} é um nome reservado: use outra chave.`;
  for (const rule of [...config, ...runs, ...refusals, ...formats]) {
    const m = rule.re.exec(message);
    if (m) return rule[p.lang === 'en' ? 'en' : 'pt'](p, [...m]);
  }
  return message;
}

/**
 * An event's error in the page's language: a whole message, or the consumer's "the mapping
 * changed" with its `path: message` list, each translated.
 */
export function eventErrorText(p: P, error: string): string {
  const changed = /^The mapping changed and the event no longer fits it: (.*)$/s.exec(error);
  if (!changed) return issueText(p, error);
  const list = (changed[1] ?? '').split('; ').map((part) => {
    const at = part.indexOf(': ');
    return at < 0 ? issueText(p, part) : `${part.slice(0, at)}: ${issueText(p, part.slice(at + 2))}`;
  });
  const head =
    p.lang === 'en'
      ? 'The mapping changed and the event no longer fits it'
      : 'O mapeamento mudou e o evento não cabe mais nele';
  return `${head}: ${list.join('; ')}`;
}
