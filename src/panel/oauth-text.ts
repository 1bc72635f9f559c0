import type { Lang } from './i18n';

// The words of the OAuth consent and connections pages, in the panel's two languages: kept apart
// from i18n.ts, whose pages they are not.

const ptBR = {
  consentTitle: 'Conectar um assistente',
  consentAsks: 'quer acessar o CRM desta conta em seu nome.',
  consentRedirect: 'Depois da aprovação, o navegador volta para',
  consentLoopback:
    'Este endereço é um programa neste computador: qualquer programa local pode estar ouvindo, seja qual for o nome que o cliente diz ter.',
  consentDomain: 'Domínio verificado do cliente:',
  consentUnverified: 'O nome foi dado pelo próprio cliente e não foi verificado.',
  consentScopes: 'O que o assistente poderá fazer',
  consentScopesHint:
    'No máximo o que a sua chave de API pode. O acesso dura 30 dias (ou até a sua chave expirar) e pode ser revogado em Configurações.',
  approve: 'Aprovar',
  deny: 'Recusar',
  consentNoScopes: 'Sua chave de API não tem nenhum escopo que um assistente possa receber.',
  consentPickOne: 'Escolha ao menos um escopo.',
  consentWider: 'Pedido recusado: um escopo escolhido vai além do que a sua chave de API pode:',
  consentBadRequest: 'Pedido de autorização inválido',
  consentUsed: 'Esta aprovação já foi usada ou expirou. Comece de novo pelo assistente.',
  consentBadClient:
    'O client_id deste cliente é uma URL que o CRM não busca (só https, em um host público, sem porta).',
  connectionsTitle: 'Assistentes conectados',
  connectionsLink: 'Assistentes conectados (OAuth)',
  connectionsNone: 'Nenhum assistente conectado por OAuth.',
  connectionsClient: 'Cliente',
  connectionsScopes: 'Escopos',
  connectionsSince: 'Desde',
  connectionsUntil: 'Até',
  revoke: 'Revogar',
  revoked: 'Acesso revogado: o assistente precisa ser conectado de novo.',
} as const;

export type OAuthText = { [K in keyof typeof ptBR]: string };

const en: OAuthText = {
  consentTitle: 'Connect an assistant',
  consentAsks: "wants to use this account's CRM on your behalf.",
  consentRedirect: 'Once approved, the browser goes back to',
  consentLoopback:
    'This address is a program on this computer: any local program could be listening, whatever name the client claims.',
  consentDomain: "The client's verified domain:",
  consentUnverified: 'The client gave this name itself; it is not verified.',
  consentScopes: 'What the assistant may do',
  consentScopesHint:
    'At most what your API key may. Access lasts 30 days (or until your key expires) and can be revoked in Settings.',
  approve: 'Approve',
  deny: 'Deny',
  consentNoScopes: 'Your API key holds none of the scopes an assistant may be given.',
  consentPickOne: 'Choose at least one scope.',
  consentWider: 'Refused: a chosen scope goes beyond what your API key may do:',
  consentBadRequest: 'Invalid authorization request',
  consentUsed: 'This approval was already used or has expired. Start again from the assistant.',
  consentBadClient:
    "This client's client_id is a URL the CRM does not fetch (https only, on a public host, no port).",
  connectionsTitle: 'Connected assistants',
  connectionsLink: 'Connected assistants (OAuth)',
  connectionsNone: 'No assistant is connected through OAuth.',
  connectionsClient: 'Client',
  connectionsScopes: 'Scopes',
  connectionsSince: 'Since',
  connectionsUntil: 'Until',
  revoke: 'Revoke',
  revoked: 'Access revoked: the assistant has to be connected again.',
};

export const oauthText: Record<Lang, OAuthText> = { 'pt-BR': ptBR, en };

/** A scope's words: what it lets an assistant do, in the panel's language (its code shown beside). */
const scopeWords: Record<Lang, { verbs: Record<string, string>; things: Record<string, string> }> = {
  'pt-BR': {
    verbs: { read: 'Ver', insert: 'Criar', update: 'Alterar', delete: 'Excluir' },
    things: {
      companies: 'empresas',
      contacts: 'contatos',
      deals: 'negócios',
      tasks: 'tarefas',
      users: 'usuários',
      webhooks: 'webhooks',
      events: 'o histórico de alterações',
      account: 'a conta',
    },
  },
  en: {
    verbs: { read: 'See', insert: 'Create', update: 'Change', delete: 'Delete' },
    things: {
      companies: 'companies',
      contacts: 'contacts',
      deals: 'deals',
      tasks: 'tasks',
      users: 'users',
      webhooks: 'webhooks',
      events: 'the change history',
      account: 'the account',
    },
  },
};

/** "Ver empresas" for `companies:read`; a scope without words (a new one) is its code alone. */
export function scopeText(scope: string, lang: Lang): string {
  const [thing = '', verb = ''] = scope.split(':');
  const words = scopeWords[lang];
  const said = Object.hasOwn(words.verbs, verb) && Object.hasOwn(words.things, thing);
  return said ? `${words.verbs[verb]} ${words.things[thing]}` : '';
}
