// The browser app's chat path against the API's for the same answer, in one Lagoon (scripts/bench/app-server.ts):
//   app: POST /api/app/conversations/:id/messages as the browser sends it (Accept: text/event-stream): the turn
//        stored, then the answer's events on the same response, read to the end (the answer written to the
//        conversation as it streams);
//   api: POST /api/v1/chat/completions, streamed, the same prompt and model.
// Sequential calls in alternating blocks (the load drifts), the server's CPU (user + system from /proc) summed per
// path: CPU per answered chat.
import { request } from 'undici';
import { cpuMs } from './procs.ts';
import { FAST_STREAM } from './streams.ts';

export interface AppWho {
  cookie: string;
  csrf: string;
  key: string;
}

export interface AppFigures {
  appCpuUs: number;
  apiCpuUs: number;
  appWallMs: number;
  apiWallMs: number;
  chats: number;
}

const cpuNow = (pid: number) => {
  const c = cpuMs(pid);
  return c.user + c.system;
};

async function ok(res: Awaited<ReturnType<typeof request>>, what: string): Promise<string> {
  const text = await res.body.text();
  if (res.statusCode >= 300) throw new Error(`${what} answered ${res.statusCode}: ${text.slice(0, 300)}`);
  return text;
}

export async function appVsApi(base: string, pid: number, who: AppWho, model: string, chats: number, block = 10): Promise<AppFigures> {
  const origin = base;
  const app = { 'content-type': 'application/json', origin, cookie: who.cookie, 'x-csrf-token': who.csrf };
  const appChat = async (conversation: string) => {
    // As the browser sends a turn: asking for its events, which come on the same response (the turn, then the answer).
    // A server from before that answers JSON, and the answer is then read from GET /messages/:id/stream (BENCH_BASELINE).
    const res = await request(`${base}/api/app/conversations/${conversation}/messages`, {
      method: 'POST',
      headers: { ...app, accept: 'text/event-stream' },
      body: JSON.stringify({ parentId: null, content: FAST_STREAM, modelId: model }),
    });
    const events = /^text\/event-stream/.test(String(res.headers['content-type']));
    const sent = await ok(res, 'send a message');
    const stream = events
      ? sent
      : await ok(
          await request(`${base}/api/app/messages/${(JSON.parse(sent) as { assistant: { id: string } }).assistant.id}/stream`, {
            headers: { cookie: who.cookie, origin },
          }),
          'its stream',
        );
    if (!stream.includes('"type":"done"')) throw new Error(`the app's stream did not end: ${stream.slice(0, 200)}`);
  };
  const apiBody = JSON.stringify({ model, stream: true, max_tokens: 16, messages: [{ role: 'user', content: FAST_STREAM }] });
  const apiChat = async () => {
    const text = await ok(
      await request(`${base}/api/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${who.key}` },
        body: apiBody,
      }),
      'a chat completion',
    );
    if (!text.includes('[DONE]')) throw new Error('the API stream did not end');
  };
  // One conversation per app chat, made beforehand: what is measured is the turn, not the conversation's creation.
  const conversations: string[] = [];
  const n = Math.ceil(chats / block) * block;
  for (let i = 0; i < n + block; i++) {
    const c = JSON.parse(await ok(await request(`${base}/api/app/conversations`, { method: 'POST', headers: app, body: '{}' }), 'a conversation')) as {
      id: string;
    };
    conversations.push(c.id);
  }
  for (let i = 0; i < block; i++) {
    await appChat(conversations.pop()!);
    await apiChat();
  }
  const f = { appCpuUs: 0, apiCpuUs: 0, appWallMs: 0, apiWallMs: 0, chats };
  for (let done = 0; done < n; done += block) {
    let c0 = cpuNow(pid);
    let t0 = performance.now();
    for (let i = 0; i < block; i++) await appChat(conversations.pop()!);
    f.appWallMs += performance.now() - t0;
    f.appCpuUs += (cpuNow(pid) - c0) * 1000;
    c0 = cpuNow(pid);
    t0 = performance.now();
    for (let i = 0; i < block; i++) await apiChat();
    f.apiWallMs += performance.now() - t0;
    f.apiCpuUs += (cpuNow(pid) - c0) * 1000;
  }
  return { appCpuUs: f.appCpuUs / n, apiCpuUs: f.apiCpuUs / n, appWallMs: f.appWallMs / n, apiWallMs: f.apiWallMs / n, chats: n };
}
