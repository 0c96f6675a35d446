// POST /v1/chat/completions: reads the script from the last user message, records the request, waits out the
// engine-wide and scripted delays, then [[hang]]s or answers a scripted error, decides the tool calls ([[tool]], [[tools2]],
// only until a tool result follows the user turn), then sends the answer (answer.ts) plain, paced by [[slow]] and cut
// by [[fail_mid]], or hands it to stream.ts. This is the order of events for one chat request; what the answer says
// and how a stream is written live in those two files.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { completionBody, composeAnswer, type ToolCallOut } from './answer.ts';
import { chatContextError, errorBody, scriptedError, sleep } from './faults.ts';
import { parseScript } from './markers.ts';
import type { Upstream } from './server.ts';
import { streamAnswer, watchClient } from './stream.ts';
import { promptTokens, textOf } from './tokens.ts';

export async function chat(up: Upstream, req: IncomingMessage, res: ServerResponse, body: any): Promise<void> {
  if (!body || typeof body !== 'object' || !Array.isArray(body.messages)) {
    return up.sendJson(res, 400, errorBody('messages must be an array', 'invalid_request_error', 'messages'));
  }
  up.record('requests', req, body);
  if (up.engine.failStatus !== undefined) return up.sendJson(res, up.engine.failStatus, errorBody(`replica ${up.name} failing`, 'server_error'));

  const messages: any[] = body.messages;
  let lastUser = -1;
  for (let i = messages.length - 1; i >= 0; i--)
    if (messages[i]?.role === 'user') {
      lastUser = i;
      break;
    }
  const userText = lastUser >= 0 ? textOf(messages[lastUser].content) : '';
  const s = parseScript(userText);
  const stream = body.stream === true;
  const client = watchClient(up.engine, res, stream);

  // A slot is held from here until the answer is written or the client leaves (ScriptedEngineOptions.slots).
  const release = await up.slot();
  if (client.closed) return release();
  res.once('close', release);
  if (up.engine.delayMs > 0) await sleep(up.engine.delayMs);
  if (s.delayMs > 0) await sleep(s.delayMs);
  if (client.closed) return;
  if (s.hang) return client.gone;
  const finish = (fn: () => void) => {
    fn();
    client.endStream();
  };
  const fault = scriptedError(s, () => chatContextError(promptTokens(messages)));
  if (fault) return finish(() => up.sendJson(res, fault.status, fault.body));

  // Tool calls only while the model has not yet seen a tool result for this user turn.
  const toolTurn = !messages.slice(lastUser + 1).some((m) => m?.role === 'tool');
  let calls: ToolCallOut[] = [];
  if (toolTurn && (s.tools.length || s.tools2)) {
    const named = [...s.tools];
    if (s.tools2) {
      const fns = (Array.isArray(body.tools) ? body.tools : []).slice(0, 2).map((t: any) => t?.function?.name);
      if (fns.length < 2 || fns.some((f: unknown) => typeof f !== 'string')) {
        return finish(() => up.sendJson(res, 400, errorBody('scripted: [[tools2]] needs request.tools with two functions', 'invalid_request_error', 'tools')));
      }
      for (const f of fns) named.push({ name: f, args: '{}' });
    }
    calls = named.map((c) => ({ id: `call_${up.nextToolCallId()}`, name: c.name, args: c.args }));
  }

  const answer = composeAnswer(s, body, userText, calls);
  const head = {
    id: `chatcmpl-scripted-${up.nextCompletionId()}`,
    created: Math.floor(Date.now() / 1000),
    model: typeof body.model === 'string' ? body.model : 'scripted',
  };

  if (stream) return streamAnswer(req, res, client, up.name, s, body, answer, head);
  if (s.slowMs > 0) await sleep(s.slowMs * answer.perChoice);
  if (client.closed) return;
  if (s.failMid) {
    client.ownDestroy = true;
    req.socket.destroy();
    return;
  }
  up.sendJson(res, 200, completionBody(s, answer, head));
}
