// Streamed chat answers (stream: true): the server-sent events of an answer, paced by [[slow]] or written at once,
// cut short by [[fail_mid]] (socket destroyed after 3 token chunks) or [[error_mid]] (an in-band error event), and the
// engine's openStreams / abortedStreams accounting, which watches every chat request's client from arrival until its
// answer ends or the client goes away.

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Answer, CompletionHead } from './answer.ts';
import { MID_STREAM_ERROR, sleep } from './faults.ts';
import type { Script } from './markers.ts';
import type { ScriptedEngine } from './server.ts';

/** One chat request's client, as the handler sees it. */
export interface Client {
  /** The response closed (answered, or the client went away). */
  closed: boolean;
  /** Set before the engine destroys the socket itself, so that close is not counted as an abort. */
  ownDestroy: boolean;
  /** Resolves when the response closes. */
  gone: Promise<void>;
  /** The stream (if any) is over: no longer open. */
  endStream(): void;
}

/** One streamed step of one choice; the non-stream reply is the same steps joined. */
interface Step {
  delta: Record<string, unknown>;
  logprobs?: unknown;
  finish?: string;
}

/** Track the client going away, so waits stop early and streams count as aborted. */
export function watchClient(engine: ScriptedEngine, res: ServerResponse, stream: boolean): Client {
  let streamOpen = stream;
  if (stream) engine.openStreams++;
  const endStream = () => {
    if (streamOpen) {
      streamOpen = false;
      engine.openStreams = Math.max(0, engine.openStreams - 1);
    }
  };
  const client: Client = {
    closed: false,
    ownDestroy: false,
    endStream,
    gone: new Promise<void>((resolve) =>
      res.once('close', () => {
        client.closed = true;
        if (!res.writableEnded && !client.ownDestroy && streamOpen) engine.abortedStreams++;
        endStream();
        resolve();
      }),
    ),
  };
  return client;
}

/** Stream the answer as chat.completion.chunk events (`replica` goes in the x-replica header). */
export async function streamAnswer(
  req: IncomingMessage,
  res: ServerResponse,
  client: Client,
  replica: string,
  s: Script,
  body: any,
  a: Answer,
  head: CompletionHead,
): Promise<void> {
  const { n, entries } = a;
  const steps: Step[] = [{ delta: { role: 'assistant', content: '' } }];
  for (const r of a.reasoning) steps.push({ delta: { reasoning_content: r } });
  a.content.forEach((c, i) => steps.push({ delta: { content: c }, logprobs: entries ? { content: [entries[i]] } : undefined }));
  for (const frags of a.callFragments) for (const f of frags) steps.push({ delta: { tool_calls: [f] } });
  steps.push({ delta: {}, finish: a.finishReason });

  const frame = (choices: unknown[], extra?: Record<string, unknown>) =>
    `data: ${JSON.stringify({ id: head.id, object: 'chat.completion.chunk', created: head.created, model: head.model, system_fingerprint: 'scripted', choices, ...extra })}\n\n`;

  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'x-replica': replica });
  // Paced streams write each chunk as it is due. Unpaced, the whole stream is ready at once, so it leaves in one
  // write instead of one syscall per chunk (the bytes on the wire are the same).
  const paced = s.slowMs > 0;
  let pending = '';
  const send = (data: string) => {
    if (paced) res.write(data);
    else pending += data;
  };
  const flush = (last: string, then?: () => void) => {
    if (then) res.write(pending + last, then);
    else res.end(pending + last);
    pending = '';
  };
  let written = 0;
  let tokenChunks = 0;
  for (const step of steps) {
    for (let index = 0; index < n; index++) {
      if (paced && written++ > 0) await sleep(s.slowMs);
      if (client.closed) return;
      const choice = { index, delta: step.delta, logprobs: step.logprobs ?? null, finish_reason: step.finish ?? null };
      send(frame([choice]));
      if (step.finish || 'role' in step.delta || ++tokenChunks < 3) continue;
      if (s.failMid) {
        client.ownDestroy = true;
        // Destroy once the chunks reached the kernel, so the client sees them and then an abrupt close.
        return flush('', () => req.socket.destroy());
      }
      if (s.errorMid) {
        flush(`${MID_STREAM_ERROR}data: [DONE]\n\n`);
        return client.endStream();
      }
    }
  }
  if (body.stream_options?.include_usage === true) send(frame([], { usage: a.usage }));
  flush('data: [DONE]\n\n');
  client.endStream();
}
