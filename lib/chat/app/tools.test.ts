// Server-side tools in the chat app, end to end: the operator adds real MCP servers (the SDK's own server classes,
// one over stdio, one over streamable HTTP, started by the test), a chat switches them on, and the scripted engine
// calls their tools. Checks the loop (model → calls → results → model), the steps streamed and stored, billing per
// round, the limits (rounds, time, result size), sealed headers (the operator's and a user's own), the SSRF rules,
// credentials kept out of arguments, and models without function calling — on SQLite and PostgreSQL.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Harness, startHarness } from '../../../e2e/support/harness.ts';
import { createTestDatabase } from '../../../e2e/support/pg.ts';
import { STDIO_SERVER, startHttpMcp, type TestHttpMcp } from '../../../e2e/support/mcp/http-server.ts';
import { call, EventReader, testUser, type TestUser } from '../../../e2e/support/app-chat.ts';
import { type FakeSearx, startFakeSearx } from '../../../e2e/browser/support/searx.ts';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJson, exportMarkdown, userConversations } from '../../conversations/conversations.ts';
import type { Service } from '../../service.ts';
import { toolRoutes } from '../../tools/app-routes.ts';
import { registry } from '../../metrics/registry.ts';
import type { AppMessage, AppMcpServer, GenerationEvent, SendMessageResponse } from '../../wire.ts';
import { chatRoutes } from '../app-routes.ts';

type Limits = Service['config']['tools'];

for (const backend of ['sqlite', 'postgres'] as const)
  describe(`chat tools over MCP (${backend})`, () => {
    let h: Harness;
    let mcp: TestHttpMcp;
    let searx: FakeSearx;
    let pages: http.Server;
    let pageUrl: string;
    let tools: ReturnType<typeof toolRoutes>;
    const chats: ReturnType<typeof chatRoutes>[] = [];
    let operator: TestUser;
    let alice: TestUser;
    let drop: (() => Promise<void>) | undefined;
    let stdio: AppMcpServer;
    let web: AppMcpServer;

    /** Chat routes whose tool loop has these limits (the defaults otherwise). */
    function chatWith(limits: Partial<Limits> = {}) {
      const svc: Service = { ...h.svc, config: { ...h.svc.config, tools: { ...h.svc.config.tools, ...limits } } };
      const routes = chatRoutes({ svc, app: h.svc.config.app });
      chats.push(routes);
      return routes;
    }

    before(async () => {
      let databaseUrl: string | undefined;
      if (backend === 'postgres') ({ url: databaseUrl, drop } = await createTestDatabase());
      mcp = await startHttpMcp();
      searx = await startFakeSearx();
      pages = http.createServer((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        res.end(
          '<html><head><title>Reef notes</title></head><body><article><h1>Reef notes</h1><p>Lagoons are calm and shallow, sheltered by reefs from the open sea.</p></article></body></html>',
        );
      });
      await new Promise<void>((r) => pages.listen(0, '127.0.0.1', r));
      pageUrl = `http://127.0.0.1:${(pages.address() as AddressInfo).port}/notes`;
      h = await startHarness({
        databaseUrl,
        // Metrics on: a test below reads the tool-call counter, which moves only when /metrics is served.
        env: { ...searx.env, LAGOON_MCP_STDIO: '1', LAGOON_FETCH_ALLOW_HOSTS: '127.0.0.1', LAGOON_SECRETS_KEY: 'a'.repeat(64), LAGOON_METRICS: '1' },
      });
      tools = toolRoutes({ svc: h.svc, app: h.svc.config.app });
      operator = await testUser(h.svc.store);
      alice = await testUser(h.svc.store);
    });
    after(async () => {
      for (const c of chats) await c.close();
      await h?.close();
      await mcp?.close();
      await searx?.close();
      pages?.closeAllConnections();
      pages?.close();
      await drop?.();
    });

    async function addServer(body: Record<string, unknown>, who = operator) {
      const res = await call(tools.operatorAddMcpServer, 'POST', '/operator/mcp-servers', who, { body });
      return { status: res.status, json: (await res.json()) as { server: AppMcpServer; code?: string; error?: string } };
    }

    async function answer(chat: ReturnType<typeof chatRoutes>, who: TestUser, content: string, settings: Record<string, unknown>, modelId?: string) {
      const c = await userConversations(h.svc.store, who.user.id).create({ settings });
      const res = await call(chat.sendMessage, 'POST', `/conversations/${c.id}/messages`, who, {
        body: { parentId: null, content, ...(modelId ? { modelId } : {}) },
        params: { id: c.id },
      });
      const sent = (await res.json()) as SendMessageResponse;
      assert.equal(res.status, 201, JSON.stringify(sent));
      const id = sent.assistant.id;
      const events = await new EventReader(await call(chat.streamMessage, 'GET', `/messages/${id}/stream`, who, { params: { id } })).rest(30_000);
      const done = events.at(-1) as Extract<GenerationEvent, { type: 'done' }>;
      assert.equal(done?.type, 'done', JSON.stringify(events));
      return { events, message: done.message as AppMessage, requestId: id };
    }

    const usageRows = async (accountId: string) => {
      await h.svc.ledger.drain();
      return h.svc.store.all<{ request_id: string; usd: number | string }>('SELECT request_id, usd FROM usage WHERE account_id = $1 ORDER BY request_id', [
        accountId,
      ]);
    };

    test('the operator adds a stdio and an HTTP server; others may not; private addresses are refused', async () => {
      const s = await addServer({ name: 'calc', transport: 'stdio', command: process.execPath, args: [STDIO_SERVER] });
      assert.equal(s.status, 201, JSON.stringify(s.json));
      stdio = s.json.server;
      const w = await addServer({ name: 'web', transport: 'http', url: mcp.url, headers: { Authorization: 'Bearer operator-token-0123456789' } });
      assert.equal(w.status, 201, JSON.stringify(w.json));
      web = w.json.server;
      assert.deepEqual(web.headerNames, ['Authorization']);
      assert.ok(!JSON.stringify(w.json).includes('operator-token'), 'a header value never comes back');
      const row = await h.svc.store.get<{ headers: string }>('SELECT headers FROM mcp_servers WHERE id = $1', [web.id]);
      assert.match(row?.headers ?? '', /^sealed:v1:/);
      assert.ok(!row?.headers.includes('operator-token'));

      assert.equal((await addServer({ name: 'x', transport: 'http', url: mcp.url }, alice)).status, 403);
      for (const url of ['http://10.0.0.7/mcp', 'http://169.254.169.254/latest', 'http://[::1]:80/mcp', 'ftp://example.com/', 'http://u:p@example.com/']) {
        const r = await addServer({ name: 'private', transport: 'http', url });
        assert.equal(r.status, 400, `${url}: ${JSON.stringify(r.json)}`);
      }
      assert.equal((await addServer({ name: 'Calc', transport: 'stdio', command: 'x' })).status, 400, 'names are unique regardless of case');

      // A name that resolves to a private address is refused when connecting (the address is vetted, then pinned).
      const sneaky = await addServer({ name: 'sneaky', transport: 'http', url: mcp.url.replace('127.0.0.1', 'localhost') });
      assert.equal(sneaky.status, 201);
      const before = mcp.requests;
      const probe = await call(tools.operatorTestMcpServer, 'POST', `/operator/mcp-servers/${sneaky.json.server.id}/test`, operator, {
        params: { id: sneaky.json.server.id },
      });
      const result = (await probe.json()) as { ok: boolean; error?: string };
      assert.equal(result.ok, false);
      assert.match(result.error ?? '', /private address/);
      assert.equal(mcp.requests, before, 'nothing reached the server');
      const gone = await call(tools.operatorRemoveMcpServer, 'DELETE', `/operator/mcp-servers/${sneaky.json.server.id}`, operator, {
        params: { id: sneaky.json.server.id },
      });
      assert.equal(gone.status, 204);

      for (const server of [stdio, web]) {
        const t = await call(tools.operatorTestMcpServer, 'POST', `/operator/mcp-servers/${server.id}/test`, operator, { params: { id: server.id } });
        const body = (await t.json()) as { ok: boolean; tools: { name: string }[]; error?: string };
        assert.equal(body.ok, true, JSON.stringify(body));
        assert.deepEqual(body.tools.map((x) => x.name).sort(), ['add', 'big', 'echo', 'fail', 'slow', 'whoami']);
      }
      const list = (await (await call(tools.listTools, 'GET', '/tools', alice)).json()) as { servers: { name: string }[] };
      assert.deepEqual(
        list.servers.map((x) => x.name),
        ['calc', 'web', 'Web search and page fetch', 'Code runner'],
      );
    });

    test('a tool call over stdio: streamed as a step, answered, stored, and each model round billed', async () => {
      const chat = chatWith();
      const before = (await usageRows(alice.user.accountId)).length;
      const calls = async () =>
        (await registry.getSingleMetric('lagoon_tool_calls_total')?.get())?.values.find((v) => v.labels.source === 'mcp' && v.labels.status === 'done')
          ?.value ?? 0;
      const counted = await calls();
      const { events, message } = await answer(chat, alice, 'What is 2 + 3? [[tool:calc__add:{"a":2,"b":3}]] [[reply:It is 5.]]', { tools: [stdio.id] });
      assert.equal(message.status, 'complete', JSON.stringify(message.error));
      assert.equal(message.content, 'It is 5.');
      const steps = events.filter((e) => e.type === 'tool').map((e) => (e as Extract<GenerationEvent, { type: 'tool' }>).step);
      assert.deepEqual(
        steps.map((s) => s.status),
        ['running', 'done'],
      );
      assert.equal(steps[1].result, '2 + 3 = 5');
      assert.equal(steps[1].server, 'calc');
      assert.equal(JSON.parse(steps[1].arguments).a, 2);
      assert.ok(typeof steps[1].ms === 'number' && steps[1].ms >= 0);
      assert.deepEqual(
        message.toolSteps?.map((s) => [s.name, s.status, s.result]),
        [['calc__add', 'done', '2 + 3 = 5']],
      );
      assert.equal((await calls()) - counted, 1, 'lagoon_tool_calls_total{source="mcp",status="done"}');

      // The second round read the call and its result.
      const second = h.engine.requests.at(-1)?.body;
      assert.equal(second.messages.at(-2).tool_calls[0].function.name, 'calc__add');
      assert.deepEqual(second.messages.at(-1), { role: 'tool', tool_call_id: steps[1].id, content: '2 + 3 = 5' });
      assert.ok(second.tools.some((t: { function: { name: string } }) => t.function.name === 'web__whoami') === false, 'only the chat’s servers');

      // Two model rounds, two usage rows; the answer shows their sum.
      await h.svc.ledger.drain();
      const rows = await usageRows(alice.user.accountId);
      assert.equal(rows.length - before, 2);
      const billed = rows.slice(before).reduce((n, r) => n + Number(r.usd), 0) / 1e6;
      assert.ok(Math.abs((message.usage?.costUsd ?? 0) - billed) < 1e-6, `${message.usage?.costUsd} vs ${billed}`);

      // A reload (the stored row, the finished stream's snapshot) shows the steps.
      const stored = await userConversations(h.svc.store, alice.user.id).message(message.id);
      assert.equal(stored.toolSteps?.[0].result, '2 + 3 = 5');
      const again = await new EventReader(
        await call(chat.streamMessage, 'GET', `/messages/${message.id}/stream`, alice, { params: { id: message.id } }),
      ).rest();
      assert.equal((again[0] as Extract<GenerationEvent, { type: 'snapshot' }>).toolSteps?.[0].name, 'calc__add');

      // Exports keep them: Markdown as a collapsed block, JSON as the steps.
      const whole = await userConversations(h.svc.store, alice.user.id).withPath(message.conversationId);
      assert.match(exportMarkdown(whole), /<summary>Tool call: calc__add on calc \(done\)<\/summary>\n\n```\n\{"a":2,"b":3\}\n```\n\n```\n2 \+ 3 = 5\n```/);
      assert.equal(JSON.parse(exportJson(whole)).messages[1].toolSteps[0].result, '2 + 3 = 5');
    });

    test('over HTTP with the operator’s sealed header, then the user’s own instead', async () => {
      const chat = chatWith();
      const ask = () => answer(chat, alice, 'Who am I? [[tool:web__whoami]] [[reply:Done.]]', { tools: [web.id] });
      let { message } = await ask();
      assert.equal(message.toolSteps?.[0].result, 'authorization: Bearer operator-token-0123456789');

      const put = await call(tools.setToolHeaders, 'PUT', `/tools/${web.id}/headers`, alice, {
        params: { id: web.id },
        // Lower case: still the one Authorization header, the user's over the operator's.
        body: { headers: { authorization: 'Bearer alice-own-token-abcdef' } },
      });
      assert.equal(put.status, 204, await put.text());
      const row = await h.svc.store.get<{ headers: string }>('SELECT headers FROM mcp_user_headers WHERE user_id = $1', [alice.user.id]);
      assert.match(row?.headers ?? '', /^sealed:v1:/);
      ({ message } = await ask());
      assert.equal(message.toolSteps?.[0].result, 'authorization: Bearer alice-own-token-abcdef');
      const list = (await (await call(tools.listTools, 'GET', '/tools', alice)).json()) as { servers: { name: string; hasUserHeaders: boolean }[] };
      assert.equal(list.servers.find((s) => s.name === 'web')?.hasUserHeaders, true);
    });

    test('limits: rounds (the last round asks for no tools), total time, and result size', async () => {
      // One round allowed: the model is told tool_choice none; it calls anyway, so the answer ends saying why.
      const before = (await usageRows(alice.user.accountId)).length;
      let r = await answer(chatWith({ maxRounds: 1 }), alice, '[[tool:calc__add:{"a":1,"b":1}]]', { tools: [stdio.id] });
      assert.equal(r.message.status, 'error');
      assert.equal(r.message.error?.code, 'TOOL_ROUNDS_EXCEEDED');
      assert.equal(h.engine.requests.at(-1)?.body.tool_choice, 'none');
      await h.svc.ledger.drain();
      assert.equal((await usageRows(alice.user.accountId)).length - before, 1, 'the one round is billed');

      // The loop's time runs out while a tool is slow: what was produced stays, the step says it did not finish.
      const started = Date.now();
      r = await answer(chatWith({ totalMs: 1500 }), alice, '[[tool:calc__slow:{"ms":20000}]] [[reply:never]]', { tools: [stdio.id] });
      assert.ok(Date.now() - started < 10_000, 'bounded by the loop’s time');
      assert.equal(r.message.error?.code, 'TOOL_TIME_EXCEEDED');
      assert.equal(r.message.toolSteps?.[0].status, 'error');

      // A result over the cap is cut before the model reads it.
      r = await answer(chatWith({ maxResultChars: 100 }), alice, '[[tool:web__big:{"n":5000}]] [[reply:ok]]', { tools: [web.id] });
      const step = r.message.toolSteps?.[0];
      assert.equal(step?.truncated, true);
      assert.ok(step && step.result.length < 200 && step.result.startsWith('x'.repeat(100)), step?.result);
      const sent = h.engine.requests.at(-1)?.body.messages.at(-1).content as string;
      assert.ok(sent.length < 200 && sent.includes('cut'), sent);
    });

    test('a reader on another instance sees the tool steps from the row', async () => {
      const writer = chatWith();
      const reader = chatWith();
      const c = await userConversations(h.svc.store, alice.user.id).create({ settings: { tools: [stdio.id] } });
      const res = await call(writer.sendMessage, 'POST', `/conversations/${c.id}/messages`, alice, {
        body: { parentId: null, content: '[[tool:calc__slow:{"ms":2500}]] [[reply:waited]]' },
        params: { id: c.id },
      });
      const id = ((await res.json()) as SendMessageResponse).assistant.id;
      // `reader` runs no generation for it: it follows the row, as another instance would.
      const events = await new EventReader(await call(reader.streamMessage, 'GET', `/messages/${id}/stream`, alice, { params: { id } })).rest(30_000);
      // The step reached the reader as `tool` events read from the row, not only in the final message.
      const steps = events.flatMap((e) => (e.type === 'tool' ? [e.step] : []));
      assert.ok(
        steps.some((s) => s.status === 'running'),
        `the running step was seen before the end: ${JSON.stringify(events.map((e) => e.type))}`,
      );
      const done = events.at(-1) as Extract<GenerationEvent, { type: 'done' }>;
      assert.equal(done.message.toolSteps?.[0].status, 'done');
      assert.equal(done.message.content, 'waited');
    });

    test('stop during a tool call ends the answer at once, as stopped', async () => {
      const chat = chatWith();
      const c = await userConversations(h.svc.store, alice.user.id).create({ settings: { tools: [stdio.id] } });
      const res = await call(chat.sendMessage, 'POST', `/conversations/${c.id}/messages`, alice, {
        body: { parentId: null, content: '[[tool:calc__slow:{"ms":20000}]] [[reply:never]]' },
        params: { id: c.id },
      });
      const id = ((await res.json()) as SendMessageResponse).assistant.id;
      const reader = new EventReader(await call(chat.streamMessage, 'GET', `/messages/${id}/stream`, alice, { params: { id } }));
      for (let e = await reader.next(); e && e.type !== 'tool'; e = await reader.next());
      const started = Date.now();
      const stop = await call(chat.stopMessage, 'POST', `/messages/${id}/stop`, alice, { params: { id } });
      const { message } = (await stop.json()) as { message: AppMessage };
      assert.ok(Date.now() - started < 3000, 'the slow tool did not hold the stop');
      assert.equal(message.status, 'stopped');
      assert.equal(message.toolSteps?.[0].status, 'error');
    });

    test('untrusted calls: credentials in arguments, unknown tools, bad JSON and failing tools get a result, not a crash', async () => {
      const chat = chatWith();
      const key = `lgn_inf_${'A'.repeat(32)}`;
      let r = await answer(chat, alice, `[[tool:calc__echo:{"text":"${key}"}]] [[reply:ok]]`, { tools: [stdio.id] });
      assert.equal(r.message.toolSteps?.[0].status, 'error');
      assert.match(r.message.toolSteps?.[0].result ?? '', /^Not called: .*credential/);
      assert.equal(r.message.content, 'ok');
      // The token inside a header this server keeps for the MCP server: not sent back out through a tool either.
      r = await answer(chat, alice, '[[tool:web__echo:{"text":"leak operator-token-0123456789"}]] [[reply:ok]]', { tools: [web.id] });
      assert.match(r.message.toolSteps?.[0].result ?? '', /^Not called: .*credential this server keeps/);
      r = await answer(chat, alice, '[[tool:calc__nope]] [[tool:calc__add:{oops]] [[tool:calc__fail]] [[reply:ok]]', { tools: [stdio.id] });
      assert.deepEqual(
        r.message.toolSteps?.map((s) => [s.status, s.result.slice(0, 24)]),
        [
          ['error', 'Not called: there is no '],
          ['error', 'Not called: the argument'],
          ['error', 'the tool broke on purpos'],
        ],
      );
      assert.equal(r.message.status, 'complete');
    });

    test('the built-in code runner through the same loop', async () => {
      const { message } = await answer(chatWith(), alice, '[[tool:run_javascript:{"code":"console.log(6 * 7); [1,2].length"}]] [[reply:42]]', {
        tools: ['builtin:code'],
      });
      assert.deepEqual(
        message.toolSteps?.map((s) => [s.name, s.server, s.status, s.result]),
        [['run_javascript', null, 'done', '42\n=> 2']],
      );
      assert.equal(message.content, '42');
    });

    test('the built-in web tools: search and page fetch, each billed; a private address is refused unbilled', async () => {
      const before = (await usageRows(alice.user.accountId)).length;
      const { message } = await answer(
        chatWith(),
        alice,
        `[[tool:web_search:{"query":"lagoon"}]] [[tool:fetch_page:{"url":"${pageUrl}"}]] [[tool:fetch_page:{"url":"http://192.168.7.7/"}]] [[reply:done]]`,
        { tools: ['builtin:web'] },
      );
      const [search, page, inside] = message.toolSteps ?? [];
      assert.equal(search.status, 'done');
      assert.match(search.result, /^\[1\] Lagoons of the Pacific\nhttps:\/\/example\.org\/lagoons/);
      assert.deepEqual(searx.queries.at(-1), 'lagoon');
      assert.equal(page.status, 'done', page.result);
      assert.match(page.result, /^# Reef notes[\s\S]*calm and shallow/);
      assert.equal(inside.status, 'error');
      assert.match(inside.result, /private|not allowed|refus/i);
      const rows = (await usageRows(alice.user.accountId)).slice(before);
      assert.equal(rows.length, 4, 'two model rounds, one search, one page');
    });

    test('a server that cannot be reached shows as a failed step; the answer goes on with the others', async () => {
      const down = await addServer({ name: 'down', transport: 'http', url: 'http://127.0.0.1:1/mcp' });
      assert.equal(down.status, 201);
      const { message } = await answer(chatWith(), alice, '[[tool:calc__add:{"a":1,"b":2}]] [[reply:3]]', { tools: [down.json.server.id, stdio.id] });
      assert.equal(message.status, 'complete');
      assert.deepEqual(
        message.toolSteps?.map((s) => [s.name, s.status]),
        [
          ['down', 'error'],
          ['calc__add', 'done'],
        ],
      );
      assert.match(message.toolSteps?.[0].result ?? '', /MCP server down could not be reached/);
      const names = ((h.engine.requests.at(-1)?.body.tools ?? []) as { function: { name: string } }[]).map((t) => t.function.name);
      assert.ok(names.includes('calc__add') && !names.some((n) => n.startsWith('down__')));
    });

    test('a model without function calling gets no tools; a disabled server is left out', async () => {
      const chat = chatWith();
      let r = await answer(chat, alice, 'Hi [[reply:hello]]', { tools: [stdio.id] }, 'plain-model');
      assert.equal(r.message.content, 'hello');
      assert.equal(r.message.toolSteps, undefined);
      assert.equal(h.engine.requests.at(-1)?.body.tools, undefined);

      const off = await call(tools.operatorUpdateMcpServer, 'PATCH', `/operator/mcp-servers/${stdio.id}`, operator, {
        params: { id: stdio.id },
        body: { enabled: false },
      });
      assert.equal(off.status, 200, await off.text());
      r = await answer(chat, alice, 'Hi [[reply:hello]]', { tools: [stdio.id] });
      assert.equal(h.engine.requests.at(-1)?.body.tools, undefined);
      const del = await call(tools.operatorRemoveMcpServer, 'DELETE', `/operator/mcp-servers/${stdio.id}`, operator, { params: { id: stdio.id } });
      assert.equal(del.status, 204);
    });
  });
