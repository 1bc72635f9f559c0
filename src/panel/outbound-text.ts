import type { EVENT_TYPES } from '../core/event-types';
import type { deliveryStatuses, endpointDisabledReasons } from '../core/statuses';
import type { Lang } from './i18n';

// The words of the outbound webhook pages (the endpoints, their secret and their delivery log), in
// the panel's two languages: kept apart from i18n.ts as oauth-text.ts is. Each enum's table is
// typed by the enum, so a new event type or status without words in both languages does not compile.

const ptBR = {
  title: 'Webhooks de saída',
  intro:
    'O CRM avisa outros sistemas quando um registro muda: cada endpoint recebe, assinadas, as mensagens dos tipos de evento que escolher.',
  newEndpoint: 'Novo endpoint',
  none: 'Nenhum endpoint ainda.',
  url: 'URL',
  urlHint: 'Um endereço https com nome público: sem IP, localhost, usuário ou senha.',
  description: 'Descrição',
  descriptionHint: 'Opcional, até 500 caracteres: para que serve este endpoint.',
  noDescription: 'sem descrição',
  eventTypes: 'Tipos de evento',
  eventTypesHint: 'O que este endpoint recebe. O ping de teste chega sempre, escolhido ou não.',
  allEvents: 'Todos os eventos, também os que vierem a existir',
  allOf: 'Todos os eventos de',
  state: 'Situação',
  on: 'Ativo',
  off: 'Desativado',
  failingSince: 'Falhando desde',
  created: 'Criado em',
  deliveries: 'Entregas',
  create: 'Criar endpoint',
  save: 'Salvar',
  settings: 'Configuração',
  edit: 'Editar',
  readOnly: 'Esta chave de API só pode ver este endpoint: as ações que o mudam não aparecem.',
  secret: 'Segredo de assinatura',
  secretOnce:
    'Copie o segredo agora e guarde-o num cofre de senhas: ele não aparece de novo. Quem o tiver pode assinar mensagens como se fosse o CRM; se ele vazar, troque-o.',
  secretUse: 'O receptor confere cada mensagem com ele (Standard Webhooks: cabeçalho webhook-signature).',
  createdTitle: 'Endpoint criado',
  rotatedTitle: 'Segredo trocado',
  previousUntil: 'O segredo anterior continua assinando junto até',
  previousGone: 'O segredo anterior parou de assinar agora.',
  toEndpoint: 'Ir para o endpoint',
  againTitle: 'Já feito',
  createdAgain:
    'Este formulário já tinha sido enviado: o endpoint foi criado naquela vez, e nada foi criado de novo. O segredo apareceu só naquela resposta e não aparece mais; se ele se perdeu, use “Trocar segredo” na página do endpoint.',
  rotatedAgain:
    'Esta troca já tinha sido feita, e o segredo não foi trocado de novo: o que apareceu naquela resposta é o atual e não aparece mais. Se ele se perdeu, use “Trocar segredo” outra vez na página do endpoint.',
  recoveredAgain: 'Estas entregas já tinham sido reenviadas por este formulário; nada foi reenviado de novo.',
  stillRunning:
    'Este formulário já tinha sido enviado e o pedido ainda está em andamento; nada foi feito de novo. Veja o resultado na lista em instantes.',
  enable: 'Ativar',
  disable: 'Desativar',
  disableTitle: 'Desativar o endpoint?',
  disableWhat:
    'Enquanto estiver desativado, nenhuma mensagem é enviada a ele, e os eventos desse período não ficam guardados para depois.',
  disableConfirm: 'Desativar',
  enabledDone: 'Endpoint ativado: volta a receber mensagens.',
  enabledRecover:
    'Endpoint ativado. Para reenviar o que falhou enquanto ele falhava, confira a data abaixo (quando as falhas começaram) e use “Reenviar as falhas”.',
  disabledDone: 'Endpoint desativado.',
  rotate: 'Trocar segredo',
  rotateTitle: 'Trocar o segredo de assinatura?',
  rotateWhat:
    'O endpoint ganha um segredo novo, mostrado uma vez só quando você confirmar. Durante o prazo escolhido, cada mensagem leva duas assinaturas, uma de cada segredo: o receptor aceita as duas enquanto passa a usar o novo.',
  rotateAgain: 'Uma troca anterior ainda está no prazo: o segredo mais antigo para na hora, e não às',
  rotateGrace: 'Por quanto tempo o segredo atual continua assinando?',
  rotateGraceHint: 'Se o segredo vazou, escolha “Agora”.',
  graceNow: 'Agora: só o segredo novo assina',
  rotateConfirm: 'Trocar o segredo',
  badGrace: 'Escolha um dos prazos da lista.',
  test: 'Enviar teste (ping)',
  testHint:
    'Envia agora uma mensagem “ping” assinada e mostra a resposta. Não grava nenhum registro no CRM: fica só no registro de entregas.',
  testTitle: 'Resultado do teste',
  testOk: 'O endpoint aceitou o ping.',
  testFailed: 'O endpoint não aceitou o ping.',
  httpStatus: 'Status HTTP',
  latency: 'Tempo de resposta',
  answer: 'Início da resposta (até 2 KiB)',
  noAnswer: 'Nenhuma resposta',
  emptyAnswer: 'Resposta vazia.',
  whyNoAnswer: 'Por que não houve resposta',
  delete: 'Excluir',
  deleteTitle: 'Excluir o endpoint?',
  deleteWhat:
    'O endpoint vai para a lixeira e nada mais é enviado a ele. Pode ser restaurado pela API (POST /v1/webhook-endpoints/{id}/restore) por 30 dias.',
  deleteConfirm: 'Excluir',
  deletedDone: 'Endpoint enviado para a lixeira.',
  savedDone: 'Salvo.',
  nothingChanged: 'Nada mudou: nada foi salvo.',
  log: 'Entregas',
  logHint:
    'Cada mensagem enviada a este endpoint nos últimos 30 dias, da mais nova à mais antiga, com cada tentativa.',
  noDeliveries: 'Nenhuma entrega ainda.',
  message: 'Mensagem',
  type: 'Tipo',
  nextAttempt: 'Próxima tentativa',
  attempt: 'Tentativa',
  attemptsOf: 'Tentativas da mensagem',
  attemptAt: 'Quando',
  attemptsCount: 'nenhuma tentativa ainda|{n} tentativa|{n} tentativas',
  noAttempts: 'Nenhuma tentativa ainda.',
  showAnswer: 'Ver a resposta',
  resend: 'Reenviar',
  resentDone: 'Entrega reenviada: uma nova rodada de tentativas começou, com o mesmo webhook-id.',
  resendBusy: 'Esta entrega ainda está sendo tentada; não dá para reenviar agora.',
  recover: 'Reenviar as falhas',
  recoverSince: 'Desde',
  recoverHint:
    'Data e hora no fuso {zone}. Cada entrega que falhou ou foi interrompida desde então é enviada de novo, na ordem das versões.',
  recoverTitle: 'Reenviar as entregas que falharam?',
  recoverWhat:
    'Cada entrega deste endpoint que falhou ou foi interrompida desde {since} será enviada de novo, com o mesmo webhook-id: o receptor descarta as repetidas por ele.',
  recoverConfirm: 'Reenviar as falhas',
  recoverDone: 'Nenhuma entrega a reenviar desde essa hora.|{n} entrega reenviada.|{n} entregas reenviadas.',
  badSince: 'Informe uma data e hora válidas, no passado.',
  ms: '{n} ms',
  ping: 'Teste (ping)',
  limitReached: 'A conta já tem o máximo de endpoints ativos (50). Exclua um antes de criar outro.',
  fixErrors: 'Corrija os erros marcados.',
};

export type OutboundText = { readonly [K in keyof typeof ptBR]: string };

const en: OutboundText = {
  title: 'Outbound webhooks',
  intro:
    'The CRM tells other systems when a record changes: each endpoint receives, signed, the messages of the event types it picks.',
  newEndpoint: 'New endpoint',
  none: 'No endpoints yet.',
  url: 'URL',
  urlHint: 'An https address with a public host name: no IP address, localhost, user or password.',
  description: 'Description',
  descriptionHint: 'Optional, up to 500 characters: what this endpoint is for.',
  noDescription: 'no description',
  eventTypes: 'Event types',
  eventTypesHint: 'What this endpoint receives. The test ping always arrives, picked or not.',
  allEvents: 'Every event, including ones added later',
  allOf: 'Every event of',
  state: 'State',
  on: 'Enabled',
  off: 'Disabled',
  failingSince: 'Failing since',
  created: 'Created',
  deliveries: 'Deliveries',
  create: 'Create endpoint',
  save: 'Save',
  settings: 'Settings',
  edit: 'Edit',
  readOnly: 'This API key can only view this endpoint: the actions that change it are not shown.',
  secret: 'Signing secret',
  secretOnce:
    'Copy the secret now and keep it in a password vault: it is not shown again. Whoever holds it can sign messages as the CRM; if it leaks, rotate it.',
  secretUse: 'The receiver checks every message with it (Standard Webhooks: the webhook-signature header).',
  createdTitle: 'Endpoint created',
  rotatedTitle: 'Secret rotated',
  previousUntil: 'The previous secret keeps signing beside it until',
  previousGone: 'The previous secret stopped signing now.',
  toEndpoint: 'Go to the endpoint',
  againTitle: 'Already done',
  createdAgain:
    'This form had already been sent: the endpoint was created then, and nothing was created again. Its secret was shown on that answer only and is not shown again; if it was lost, use “Rotate secret” on the endpoint’s page.',
  rotatedAgain:
    'This rotation had already been done, and the secret was not rotated again: the one shown on that answer is the current one and is not shown again. If it was lost, use “Rotate secret” again on the endpoint’s page.',
  recoveredAgain: 'These deliveries had already been sent again by this form; nothing was sent again.',
  stillRunning:
    'This form had already been sent and that request is still running; nothing was done again. See the result in the list in a moment.',
  enable: 'Enable',
  disable: 'Disable',
  disableTitle: 'Disable the endpoint?',
  disableWhat:
    'While it is disabled no message is sent to it, and the events of that time are not kept for later.',
  disableConfirm: 'Disable',
  enabledDone: 'Endpoint enabled: it receives messages again.',
  enabledRecover:
    'Endpoint enabled. To resend what failed meanwhile, check the date below (when the failures began) and use “Resend the failures”.',
  disabledDone: 'Endpoint disabled.',
  rotate: 'Rotate secret',
  rotateTitle: 'Rotate the signing secret?',
  rotateWhat:
    'The endpoint gets a new secret, shown once when you confirm. During the grace period you choose, every message carries two signatures, one per secret: the receiver accepts both while it moves to the new one.',
  rotateAgain: 'An earlier rotation is still in its grace period: the oldest secret stops at once, not at',
  rotateGrace: 'How long does the current secret keep signing?',
  rotateGraceHint: 'If the secret leaked, choose “Now”.',
  graceNow: 'Now: only the new secret signs',
  rotateConfirm: 'Rotate the secret',
  badGrace: 'Choose one of the listed grace periods.',
  test: 'Send test (ping)',
  testHint:
    'Sends a signed “ping” message now and shows the answer. It writes no record in the CRM: only the delivery log.',
  testTitle: 'Test result',
  testOk: 'The endpoint accepted the ping.',
  testFailed: 'The endpoint did not accept the ping.',
  httpStatus: 'HTTP status',
  latency: 'Response time',
  answer: 'Start of the answer (up to 2 KiB)',
  noAnswer: 'No answer',
  emptyAnswer: 'Empty answer.',
  whyNoAnswer: 'Why no answer came',
  delete: 'Delete',
  deleteTitle: 'Delete the endpoint?',
  deleteWhat:
    'The endpoint goes to the trash and nothing more is sent to it. The API can restore it (POST /v1/webhook-endpoints/{id}/restore) for 30 days.',
  deleteConfirm: 'Delete',
  deletedDone: 'Endpoint moved to the trash.',
  savedDone: 'Saved.',
  nothingChanged: 'Nothing changed: nothing was saved.',
  log: 'Deliveries',
  logHint: 'Every message sent to this endpoint in the last 30 days, newest first, with every attempt.',
  noDeliveries: 'No deliveries yet.',
  message: 'Message',
  type: 'Type',
  nextAttempt: 'Next attempt',
  attempt: 'Attempt',
  attemptsOf: 'Attempts of message',
  attemptAt: 'When',
  attemptsCount: 'no attempt yet|{n} attempt|{n} attempts',
  noAttempts: 'No attempt yet.',
  showAnswer: 'Show the answer',
  resend: 'Resend',
  resentDone: 'Delivery resent: a new round of attempts started, with the same webhook-id.',
  resendBusy: 'This delivery is still being tried; it cannot be resent now.',
  recover: 'Resend the failures',
  recoverSince: 'Since',
  recoverHint:
    'Date and time in {zone}. Every delivery that failed or was aborted since then is sent again, in version order.',
  recoverTitle: 'Resend the failed deliveries?',
  recoverWhat:
    'Every delivery of this endpoint that failed or was aborted since {since} will be sent again, with the same webhook-id: the receiver drops repeats by it.',
  recoverConfirm: 'Resend the failures',
  recoverDone: 'No delivery to resend since then.|{n} delivery resent.|{n} deliveries resent.',
  badSince: 'Enter a valid date and time in the past.',
  ms: '{n} ms',
  ping: 'Test (ping)',
  limitReached:
    'The account has the most live endpoints it may have (50). Delete one before creating another.',
  fixErrors: 'Fix the marked errors.',
};

export const outboundText: Record<Lang, OutboundText> = { 'pt-BR': ptBR, en };

type Labels<T extends string> = { readonly [L in Lang]: { readonly [K in T]: string } };

export const eventTypeLabels: Labels<(typeof EVENT_TYPES)[number]> = {
  'pt-BR': {
    'company.created': 'Empresa criada',
    'company.updated': 'Empresa alterada',
    'company.deleted': 'Empresa excluída',
    'company.restored': 'Empresa restaurada',
    'contact.created': 'Contato criado',
    'contact.updated': 'Contato alterado',
    'contact.deleted': 'Contato excluído',
    'contact.restored': 'Contato restaurado',
    'deal.created': 'Negócio criado',
    'deal.updated': 'Negócio alterado',
    'deal.deleted': 'Negócio excluído',
    'deal.restored': 'Negócio restaurado',
    'task.created': 'Tarefa criada',
    'task.updated': 'Tarefa alterada',
    'task.deleted': 'Tarefa excluída',
    'task.restored': 'Tarefa restaurada',
    'user.created': 'Usuário criado',
    'user.updated': 'Usuário alterado',
    'user.deleted': 'Usuário excluído',
    'user.restored': 'Usuário restaurado',
    'task.completed': 'Tarefa concluída',
    'task.reopened': 'Tarefa reaberta',
    'contact.erased': 'Contato apagado (LGPD)',
    'endpoint.disabled': 'Endpoint desativado pelo CRM',
  },
  en: {
    'company.created': 'Company created',
    'company.updated': 'Company updated',
    'company.deleted': 'Company deleted',
    'company.restored': 'Company restored',
    'contact.created': 'Contact created',
    'contact.updated': 'Contact updated',
    'contact.deleted': 'Contact deleted',
    'contact.restored': 'Contact restored',
    'deal.created': 'Deal created',
    'deal.updated': 'Deal updated',
    'deal.deleted': 'Deal deleted',
    'deal.restored': 'Deal restored',
    'task.created': 'Task created',
    'task.updated': 'Task updated',
    'task.deleted': 'Task deleted',
    'task.restored': 'Task restored',
    'user.created': 'User created',
    'user.updated': 'User updated',
    'user.deleted': 'User deleted',
    'user.restored': 'User restored',
    'task.completed': 'Task completed',
    'task.reopened': 'Task reopened',
    'contact.erased': 'Contact erased (LGPD)',
    'endpoint.disabled': 'Endpoint disabled by the CRM',
  },
};

/** The groups of the picker: each record type's name (its `<record>.*` option). */
export const recordGroupLabels: Labels<'company' | 'contact' | 'deal' | 'task' | 'user' | 'endpoint'> = {
  'pt-BR': {
    company: 'Empresas',
    contact: 'Contatos',
    deal: 'Negócios',
    task: 'Tarefas',
    user: 'Usuários',
    endpoint: 'Endpoints',
  },
  en: {
    company: 'Companies',
    contact: 'Contacts',
    deal: 'Deals',
    task: 'Tasks',
    user: 'Users',
    endpoint: 'Endpoints',
  },
};

export const deliveryStatusLabels: Labels<(typeof deliveryStatuses)[number]> = {
  'pt-BR': { pending: 'Pendente', succeeded: 'Entregue', failed: 'Falhou', aborted: 'Interrompida' },
  en: { pending: 'Pending', succeeded: 'Delivered', failed: 'Failed', aborted: 'Aborted' },
};

export const disabledReasonLabels: Labels<(typeof endpointDisabledReasons)[number]> = {
  'pt-BR': {
    gone: 'Desativado pelo CRM: o endpoint respondeu 410 (Gone).',
    failing: 'Desativado pelo CRM: 5 dias seguidos só com falhas. Ative-o e reenvie as falhas do período.',
  },
  en: {
    gone: 'Disabled by the CRM: the endpoint answered 410 (Gone).',
    failing:
      'Disabled by the CRM: 5 days of failures without a success. Enable it and resend the failures of that time.',
  },
};

/** The URL policy's refusals (src/core/outbound-url.ts), by code. */
export const urlRefusalLabels: Labels<
  'invalid_url' | 'url_credentials' | 'https_required' | 'ip_literal' | 'host_not_public' | 'own_host'
> = {
  'pt-BR': {
    invalid_url: 'Informe um endereço completo, começando por https://, de até 2048 caracteres.',
    url_credentials: 'O endereço não pode levar usuário nem senha: a assinatura prova quem enviou.',
    https_required: 'Só endereços https recebem webhooks.',
    ip_literal: 'Use um nome de host, não um endereço IP.',
    host_not_public: 'Este host não é público (localhost, .local, .internal…).',
    own_host: 'Um endpoint não pode apontar para o próprio CRM.',
  },
  en: {
    invalid_url: 'Enter a whole address starting with https://, of at most 2048 characters.',
    url_credentials: 'The address may not carry a user name or password: the signature proves the sender.',
    https_required: 'Only https addresses receive webhooks.',
    ip_literal: 'Use a host name, not an IP address.',
    host_not_public: 'This host is not public (localhost, .local, .internal…).',
    own_host: 'An endpoint may not point at the CRM itself.',
  },
};
