/**
 * The internet as the tested Worker's outbound fetch sees it (vitest.config.ts routes every
 * outbound request here): one OAuth client's metadata document (test/oauth/cimd.test.ts), every
 * request recorded so a test can show that a URL the Worker must not fetch was never asked for,
 * and a webhook receiver that verifies each delivery with the `standardwebhooks` package (not the
 * project's code). Nothing else is reachable, as on this machine.
 *
 * The receiver keeps boxes: `PUT https://receiver.example/_box/<name>` with `{ secret, answers }`
 * sets one up (the answers are played in turn, the last one repeats); a POST to
 * `https://receiver.example/<name>` is verified and recorded; `GET …/_box/<name>` reads the record.
 */
import { Webhook } from 'standardwebhooks';

type Answer = { status: number; headers?: Record<string, string>; body?: string };
type Received = { id: string | null; verified: boolean; body: string; headers: Record<string, string> };
type Box = { secrets: string[]; answers: Answer[]; received: Received[] };

const CIMD_CLIENT = 'https://cimd.example/oauth/client.json';
const outbound: string[] = [];
const boxes = new Map<string, Box>();

const verifies = (secret: string, body: string, headers: Record<string, string>) => {
  try {
    new Webhook(secret).verify(body, headers);
    return true;
  } catch {
    return false;
  }
};

async function receiver(request: Request, path: string): Promise<Response> {
  const control = /^\/_box\/([\w-]+)$/.exec(path)?.[1];
  if (control && request.method === 'PUT') {
    const { secrets, answers } = (await request.json()) as Pick<Box, 'secrets' | 'answers'>;
    boxes.set(control, { secrets, answers, received: boxes.get(control)?.received ?? [] });
    return new Response(null, { status: 204 });
  }
  if (control) return Response.json(boxes.get(control)?.received ?? []);
  const box = boxes.get(path.slice(1));
  // Read before any answer: a body left unread is, to workerd, an uncaught "Can't read from
  // request stream after response has been sent" in the test log (about 1,300 lines a run).
  const body = await request.text();
  if (!box) return new Response('no such box', { status: 404 });
  const headers = Object.fromEntries(request.headers);
  // Each secret alone must verify: during a rotation's grace a receiver holds either one.
  const verified = box.secrets.length > 0 && box.secrets.every((secret) => verifies(secret, body, headers));
  box.received.push({ id: request.headers.get('webhook-id'), verified, body, headers });
  const answer = (box.answers.length > 1 ? box.answers.shift() : box.answers[0]) ?? { status: 204 };
  return new Response(answer.body ?? null, { status: answer.status, headers: answer.headers });
}

export default {
  async fetch(request: Request): Promise<Response> {
    outbound.push(request.url);
    const url = new URL(request.url);
    if (url.hostname === 'receiver.example') return receiver(request, url.pathname);
    if (request.url === 'https://cimd.example/outbound-log') return Response.json(outbound);
    if (request.url !== CIMD_CLIENT) {
      await request.arrayBuffer(); // read, as the receiver's is (see there)
      return new Response('unreachable in tests', { status: 502 });
    }
    return Response.json({
      client_id: CIMD_CLIENT,
      client_name: 'CIMD Assistant',
      redirect_uris: ['https://client.example/callback'],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
    });
  },
};
