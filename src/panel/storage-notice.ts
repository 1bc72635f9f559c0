import { html } from 'hono/html';
import type { HtmlEscapedString } from 'hono/utils/html';
import type { EventStorage } from '../webhooks/log/event-storage';
import type { Lang } from './i18n';
import type { Page } from './views/layout';

// The banner every page of an account shows once its webhook events near or fill the storage
// quota (src/webhooks/log/event-storage.ts): when full, calls are answered 429 and not stored, so a
// configurer must see it before a sender's leads are lost.

/** From this share of the quota on, a warning; at the quota, the alert. */
const WARN_AT = 0.8;

const mib = (bytes: number) => (bytes / (1024 * 1024)).toFixed(bytes < 10 * 1024 * 1024 ? 1 : 0);

const texts: Record<Lang, { full: (s: EventStorage) => string; near: (s: EventStorage) => string }> = {
  'pt-BR': {
    full: (s) =>
      `O armazenamento de eventos desta conta está cheio (${mib(s.used_bytes)} de ${mib(s.quota_bytes)} MiB): os webhooks respondem 429 e não guardam nenhuma chamada nova, e um lead enviado agora se perde se o remetente não tentar de novo. Eventos com mais de ${s.retention_days} dias são apagados automaticamente a cada 5 minutos; para liberar espaço agora, apague eventos na lista de eventos do webhook (botão “Apagar todos os eventos deste webhook”, ou filtre a lista antes para apagar só alguns), ou peça ao operador do serviço para aumentar o limite. Antes, desative ou troque a URL do webhook que recebe chamadas demais, para que novas chamadas não voltem a encher o armazenamento.`,
    near: (s) =>
      `O armazenamento de eventos desta conta está quase cheio (${mib(s.used_bytes)} de ${mib(s.quota_bytes)} MiB). Quando encher, os webhooks respondem 429 e não guardam chamadas novas. Eventos com mais de ${s.retention_days} dias são apagados automaticamente.`,
  },
  en: {
    full: (s) =>
      `This account's event storage is full (${mib(s.used_bytes)} of ${mib(s.quota_bytes)} MiB): its webhooks answer 429 and store no new call, and a lead sent now is lost unless its sender retries. Events older than ${s.retention_days} days are deleted automatically every 5 minutes; to free space now, delete events from the webhook's event list (the “Delete all events of this webhook” button, or filter the list first to delete only some), or ask the service's operator to raise the quota. First disable the webhook that receives too many calls, or rotate its URL, so that new calls do not fill the storage again.`,
    near: (s) =>
      `This account's event storage is almost full (${mib(s.used_bytes)} of ${mib(s.quota_bytes)} MiB). Once full, its webhooks answer 429 and store no new calls. Events older than ${s.retention_days} days are deleted automatically.`,
  },
};

/** The page with the account's storage banner, when there is one to show. */
export function withStorageNotice(p: Page, storage: EventStorage): Page {
  const t = texts[p.lang];
  let notice: HtmlEscapedString | Promise<HtmlEscapedString> | undefined;
  if (storage.full) notice = html`<p class="banner storage-full" role="alert">${t.full(storage)}</p>`;
  else if (storage.used_bytes >= storage.quota_bytes * WARN_AT) {
    notice = html`<p class="banner storage-near" role="note">${t.near(storage)}</p>`;
  }
  return notice ? { ...p, notice } : p;
}
