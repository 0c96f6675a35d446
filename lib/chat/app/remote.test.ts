// Remote mode: the chat app answering through an external OpenAI-compatible API (here the harness's own /api/v1)
// with a key held in the server's environment. The key is charged, streams and stops work the same, upstream errors
// land on the answer, and the key never appears in anything the browser receives.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Harness, startHarness } from '../../../e2e/support/harness.ts';
import { loadConfig } from '../../config.ts';
import { userConversations } from '../../conversations/conversations.ts';
import type { RouteHandler } from '../../http/app-route.ts';
import type { AppMessage, GenerationEvent, SendMessageResponse } from '../../wire.ts';
import { chatRoutes } from '../app-routes.ts';
import { EventReader, sleep, testUser, type TestUser } from '../../../e2e/support/app-chat.ts';

describe('remote inference (INFERENCE_BASE_URL + INFERENCE_API_KEY)', () => {
  let h: Harness;
  let key: string;
  let keyAccount: string;
  let chat: ReturnType<typeof chatRoutes>;
  let alice: TestUser;
  /** Everything the browser received: status lines, headers and bodies. */
  const seen: string[] = [];

  /** A handler whose responses are recorded for the key scan. */
  const recorded =
    (handler: RouteHandler): RouteHandler =>
    async (req, params) => {
      const res = await handler(req, params);
      const [mine, theirs] = res.body ? res.body.tee() : [null, null];
      const copy = new Response(theirs, { status: res.status, headers: res.headers });
      seen.push(`${res.status} ${JSON.stringify([...res.headers])}`);
      if (mine) void new Response(mine).text().then((t) => seen.push(t));
      return copy;
    };

  before(async () => {
    h = await startHarness();
    ({ key, accountId: keyAccount } = await h.newAccount({ usd: 5 }));
    chat = chatRoutes({ svc: h.svc, app: loadConfig({ INFERENCE_BASE_URL: h.base, INFERENCE_API_KEY: key }).app });
    // The browser user has no credit of their own: the server's key pays upstream.
    alice = await testUser(h.svc.store, 0);
  });
  after(async () => {
    await chat.close();
    await h.close();
  });

  async function send(routes: ReturnType<typeof chatRoutes>, who: TestUser, conversationId: string, body: Record<string, unknown>) {
    const res = await recorded(routes.sendMessage)(
      new Request(`http://127.0.0.1/api/app/conversations/${conversationId}/messages`, {
        method: 'POST',
        headers: { cookie: who.cookie, 'x-csrf-token': who.csrf, 'content-type': 'application/json' },
        body: JSON.stringify({ parentId: null, ...body }),
      }),
      { id: conversationId },
    );
    return { res, json: (await res.json()) as SendMessageResponse & { code?: string } };
  }
  const stream = (routes: ReturnType<typeof chatRoutes>, who: TestUser, id: string) =>
    recorded(routes.streamMessage)(new Request(`http://127.0.0.1/api/app/messages/${id}/stream`, { headers: { cookie: who.cookie } }), { id });

  test('an answer streams from the remote API, billed to the server key’s account, with usage and cost', async () => {
    const c = await userConversations(h.svc.store, alice.user.id).create();
    const { res, json } = await send(chat, alice, c.id, { content: 'Hello remote [[reasoning]] [[reply:Remote says hi.]]' });
    assert.equal(res.status, 201);
    assert.equal(json.assistant.modelId, 'scripted-model');
    const events = await new EventReader(await stream(chat, alice, json.assistant.id)).rest();
    const done = events.at(-1) as Extract<GenerationEvent, { type: 'done' }>;
    assert.equal(done.message.status, 'complete', JSON.stringify(done.message.error));
    assert.equal(done.message.content, 'Remote says hi.');
    assert.equal(done.message.reasoning, 'The user wants a scripted answer, so I will give one.');
    assert.ok(done.message.usage && done.message.usage.costUsd > 0);
    await h.svc.ledger.drain();
    const charged = await h.svc.store.get<{ n: number }>('SELECT COUNT(*) AS n FROM usage WHERE account_id = $1', [keyAccount]);
    assert.ok(Number(charged?.n) >= 1);
    const own = await h.svc.store.get<{ n: number }>('SELECT COUNT(*) AS n FROM usage WHERE account_id = $1', [alice.user.accountId]);
    assert.equal(Number(own?.n), 0);
  });

  test('server-side tools run here; the remote API only sees ordinary tool-calling requests, each billed', async () => {
    await h.svc.ledger.drain();
    const count = async () => Number((await h.svc.store.get<{ n: number }>('SELECT COUNT(*) AS n FROM usage WHERE account_id = $1', [keyAccount]))?.n);
    const before = await count();
    const c = await userConversations(h.svc.store, alice.user.id).create({ settings: { tools: ['builtin:code'] } });
    const { json } = await send(chat, alice, c.id, { content: '[[tool:run_javascript:{"code":"6 * 7"}]] [[reply:It is 42.]]' });
    const events = await new EventReader(await stream(chat, alice, json.assistant.id)).rest();
    const done = events.at(-1) as Extract<GenerationEvent, { type: 'done' }>;
    assert.equal(done.message.status, 'complete', JSON.stringify(done.message.error));
    assert.equal(done.message.content, 'It is 42.');
    assert.deepEqual(
      done.message.toolSteps?.map((s) => [s.name, s.status, s.result]),
      [['run_javascript', 'done', '=> 42']],
    );
    // The second request carried the call and its result as plain chat messages.
    const second = h.engine.requests.at(-1)?.body;
    assert.equal(second.messages.at(-1).role, 'tool');
    assert.equal(second.messages.at(-1).content, '=> 42');
    assert.equal(second.tools[0].function.name, 'run_javascript');
    await h.svc.ledger.drain();
    assert.equal((await count()) - before, 2, 'two rounds, two billed requests');
  });

  test('stop aborts the upstream stream and keeps the partial answer', async () => {
    const c = await userConversations(h.svc.store, alice.user.id).create();
    const aborted = h.engine.abortedStreams;
    const { json } = await send(chat, alice, c.id, { content: '[[tokens:200]] [[slow:30]]' });
    const reader = new EventReader(await stream(chat, alice, json.assistant.id));
    let deltas = 0;
    while (deltas < 3) if ((await reader.next())?.type === 'delta') deltas++;
    const res = await recorded(chat.stopMessage)(
      new Request(`http://127.0.0.1/api/app/messages/${json.assistant.id}/stop`, {
        method: 'POST',
        headers: { cookie: alice.cookie, 'x-csrf-token': alice.csrf },
      }),
      { id: json.assistant.id },
    );
    const { message } = (await res.json()) as { message: AppMessage };
    assert.equal(message.status, 'stopped');
    assert.match(message.content, /^w1 w2 w3/);
    await reader.rest();
    for (let i = 0; i < 100 && h.engine.abortedStreams === aborted; i++) await sleep(20);
    assert.equal(h.engine.abortedStreams, aborted + 1, 'the upstream request was cancelled');
  });

  test('upstream errors are stored on the answer: 402 from a key without credit', async () => {
    const { key: brokeKey } = await h.newAccount({ usd: 0 });
    const broke = chatRoutes({ svc: h.svc, app: loadConfig({ INFERENCE_BASE_URL: h.base, INFERENCE_API_KEY: brokeKey }).app });
    try {
      const c = await userConversations(h.svc.store, alice.user.id).create();
      const { json } = await send(broke, alice, c.id, { content: 'hello' });
      const events = await new EventReader(await stream(broke, alice, json.assistant.id)).rest();
      const done = events.at(-1) as Extract<GenerationEvent, { type: 'done' }>;
      assert.equal(done.message.status, 'error');
      assert.equal(done.message.error?.code, 'INSUFFICIENT_BALANCE');
      assert.equal(done.message.error?.status, 402);
    } finally {
      await broke.close();
    }
  });

  test('an unknown model is refused before anything is stored', async () => {
    const c = await userConversations(h.svc.store, alice.user.id).create();
    const { res, json } = await send(chat, alice, c.id, { content: 'hi', modelId: 'not-there' });
    assert.equal(res.status, 404);
    assert.equal(json.code, 'MODEL_NOT_FOUND');
    assert.equal((await userConversations(h.svc.store, alice.user.id).get(c.id)).messages.length, 0);
  });

  test('the server key never reaches the browser', async () => {
    await sleep(100); // let the recorded bodies finish reading
    assert.ok(seen.length > 10);
    const all = seen.join('\n');
    assert.ok(!all.includes(key), 'key found in a response');
    assert.ok(!all.includes(key.slice(-16)), 'part of the key found in a response');
  });
});
