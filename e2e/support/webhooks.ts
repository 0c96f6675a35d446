// A real webhook receiver on loopback: it keeps every request it gets, answers as the test says (a status, or no
// answer at all until the sender gives up), and checks each signature the way docs/API.md tells a receiver to, with
// node:crypto alone (not the server's own code): HMAC-SHA256 under the base64 key after `whsec_`, over
// `<webhook-id>.<webhook-timestamp>.<body>`, and a timestamp within five minutes.
import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedHook {
  id: string;
  timestamp: string;
  signature: string;
  body: string;
  json: Record<string, any>;
  /** When it arrived (ms). */
  at: number;
  /** What the receiver answered (0: nothing, it let the request hang). */
  answered: number;
}

export interface WebhookReceiver {
  url: string;
  hooks: ReceivedHook[];
  /** Picks the answer to the n-th attempt (0-based) of one event id: a status, or 'hang' to never answer. Default 200. */
  respond: (n: number) => number | 'hang';
  close(): Promise<void>;
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const hooks: ReceivedHook[] = [];
  const hanging = new Set<http.ServerResponse>();
  const receiver: WebhookReceiver = {
    url: '',
    hooks,
    respond: () => 200,
    close: async () => {
      for (const r of hanging) r.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const id = String(req.headers['webhook-id'] ?? '');
      const answer = receiver.respond(hooks.filter((h) => h.id === id).length);
      let json: Record<string, any> = {};
      try {
        json = JSON.parse(body);
      } catch {}
      hooks.push({
        id: String(req.headers['webhook-id'] ?? ''),
        timestamp: String(req.headers['webhook-timestamp'] ?? ''),
        signature: String(req.headers['webhook-signature'] ?? ''),
        body,
        json,
        at: Date.now(),
        answered: answer === 'hang' ? 0 : answer,
      });
      if (answer === 'hang') {
        hanging.add(res);
        return;
      }
      res.writeHead(answer, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/lagoon`;
  return receiver;
}

/** The receiver's check from docs/API.md, written independently of lib/alerts/signature.ts. */
export function verifyHook(secret: string, hook: Pick<ReceivedHook, 'id' | 'timestamp' | 'signature' | 'body'>, now = Date.now()): boolean {
  if (!secret.startsWith('whsec_') || !/^\d+$/.test(hook.timestamp)) return false;
  if (Math.abs(Math.floor(now / 1000) - Number(hook.timestamp)) > 300) return false;
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  const expected = `v1,${crypto.createHmac('sha256', key).update(`${hook.id}.${hook.timestamp}.${hook.body}`).digest('base64')}`;
  return hook.signature.split(' ').some((s) => s.length === expected.length && crypto.timingSafeEqual(Buffer.from(s), Buffer.from(expected)));
}
