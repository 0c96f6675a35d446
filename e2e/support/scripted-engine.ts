// The scripted engine: a loopback OpenAI-compatible server (vLLM's wire shapes) that tests, browser e2e tests and the
// benchmark use as an upstream "openai" engine. Replies are steered by markers in the text of the LAST user message
// (string content, or the text parts of an array content joined by "\n"). Markers elsewhere are ignored.
//
// Markers (any combination, `[[...]]`; an argument may not contain `]]`):
//   [[echo]]               reply with the last user message's text, markers removed and trimmed
//   [[reply:TEXT]]         reply exactly TEXT (spaces, newlines and markdown allowed)
//   [[tokens:N]]           reply `w1 w2 … wN` (exactly N tokens)
//   [[markdown]]           canned markdown: heading, GFM table, list, inline math $e^{i\pi}+1=0$, ```ts code block
//   [[code]]               canned answer with a ```python code block
//   [[json]]               reply `{"answer":42}` (for response_format tests)
//   [[echo_request]]       reply JSON.stringify(request.messages), streamed in 40-character chunks (1 chunk = 1 token)
//   [[think]]              content starts `<think>Let me think this through.</think>`; tags stream split (`<thi`+`nk>`)
//   [[reasoning]]          reasoning via reasoning_content (streamed before content); counted in reasoning_tokens
//   [[tool:NAME:JSON]]     tool call to NAME with arguments JSON (sent verbatim, unvalidated); repeatable
//   [[tools2]]             two parallel tool calls to the first two request.tools, arguments `{}`
//   [[slow:MS]]            wait MS between streamed chunks (non-stream: MS × tokens before replying)
//   [[delay:MS]]           wait MS before sending response headers
//   [[fail_mid]]           stream 3 token chunks then destroy the socket (non-stream: destroy without a response)
//   [[error_mid]]          stream 3 token chunks, then an in-band `data: {"error":…}` event, then `data: [DONE]`
//   [[status:CODE]]        respond HTTP CODE with an OpenAI error body saying `scripted status CODE`
//   [[context]]            respond 400 context_length_exceeded (vLLM's message)
//   [[hang]]               never respond; the socket stays open until the client goes away
//   [[cached:N]]           usage.prompt_tokens_details.cached_tokens = N
// Reply source precedence: reply > tokens > markdown > code > json > echo_request > echo > default
// (`Hello from the scripted engine.`). Tool markers replace content (content null, finish_reason tool_calls) and only
// fire while no `tool` message follows the last user message, so agent loops get a plain answer after the tool result.
//
// Tokens: a reply splits into whitespace-separated words, each keeping its trailing whitespace (so the chunks
// concatenate back to the reply exactly). completion_tokens = tokens emitted over all choices (reasoning included;
// a tool call counts 1 + its argument fragments). prompt_tokens = whitespace-separated words in the text of ALL
// messages (string contents and text parts, markers included) + 1 per message.
//
// Streams (stream: true) count in openStreams from arrival to end, and in abortedStreams when the client leaves first
// (also while delayed or hung); [[fail_mid]]'s own socket kill is not an abort.
//
// Parameters honoured: stream, stream_options.include_usage, n, max_tokens / max_completion_tokens (→ length),
// stop (→ stop), logprobs / top_logprobs (logprob of token i is -0.1 × (i+1)); seed is ignored.
//
// Embeddings (POST /v1/embeddings): `input` is a string or an array of strings. Each input's vector is
// deterministic: mulberry32 seeded with the FNV-1a hash of the text, EMBEDDING_DIMENSIONS (16) components, or
// `dimensions` when the request sets it, L2-normalised; so equal texts get equal vectors and different texts differ.
// usage.prompt_tokens = total_tokens = whitespace-separated words over all inputs. `encoding_format: "base64"` is
// honoured (little-endian float32). Markers in any input: [[status:CODE]], [[context]] (400 context_length_exceeded),
// [[delay:MS]]; token-id arrays get 400 as on our own API. Requests are recorded in embeddingRequests.
//
// CLI: node e2e/support/scripted-engine.ts --port 8765 [--host 127.0.0.1] [--delay-ms 20] [--name scripted]

import http from 'node:http';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import path from 'node:path';
import { parseArgs } from 'node:util';

export interface RecordedRequest {
  body: any;
  headers: IncomingHttpHeaders;
  at: number;
}

export interface ScriptedEngine {
  /** Base URL including /v1, e.g. http://127.0.0.1:43121/v1 */
  url: string;
  /** Replica name, sent as the x-replica response header. */
  name: string;
  /** Every chat request received (the most recent MAX_RECORDED, so long benchmarks do not grow without bound). */
  requests: RecordedRequest[];
  /** Every embeddings request received (the most recent MAX_RECORDED). */
  embeddingRequests: RecordedRequest[];
  /** Streams whose client disconnected before the end. */
  abortedStreams: number;
  /** Streams currently in progress. */
  openStreams: number;
  reset(): void;
  close(): Promise<void>;
}

export interface ScriptedEngineOptions {
  host?: string;
  port?: number;
  name?: string;
  /** Wait this long before answering every chat request (emulates a model's latency). */
  delayMs?: number;
}

const MAX_RECORDED = 10_000;
const DEFAULT_REPLY = 'Hello from the scripted engine.';
const MARKER = /\[\[([a-z0-9_]+)(?::([\s\S]*?))?\]\]/g;
const MARKER_WITH_SPACE = /[ \t]*\[\[[a-z0-9_]+(?::[\s\S]*?)?\]\]/g;

const MARKDOWN_REPLY = [
  '## Scripted answer',
  '',
  '| Name | Value |',
  '| --- | --- |',
  '| alpha | 1 |',
  '| beta | 2 |',
  '',
  '- first item',
  '- second item',
  '',
  "Euler's identity: $e^{i\\pi}+1=0$",
  '',
  '```ts',
  'const answer: number = 42;',
  'console.log(answer);',
  '```',
].join('\n');

const CODE_REPLY = ['Here is a Python function:', '', '```python', 'def add(a, b):', '    return a + b', '```', '', 'It adds two numbers.'].join('\n');

// The tags are cut mid-word so clients must parse `<think>` across chunk boundaries.
const THINK_PIECES = ['<thi', 'nk>', 'Let ', 'me ', 'think ', 'this ', 'through.', '</th', 'ink>'];
const REASONING_TEXT = 'The user wants a scripted answer, so I will give one.';

interface Script {
  reply?: string;
  tokens?: number;
  markdown: boolean;
  code: boolean;
  json: boolean;
  echoRequest: boolean;
  echo: boolean;
  think: boolean;
  reasoning: boolean;
  tools: { name: string; args: string }[];
  tools2: boolean;
  slowMs: number;
  delayMs: number;
  failMid: boolean;
  errorMid: boolean;
  status?: number;
  context: boolean;
  hang: boolean;
  cached?: number;
}

interface ToolCallOut {
  id: string;
  name: string;
  args: string;
}

/** One streamed step of one choice; the non-stream reply is the same steps joined. */
interface Step {
  delta: Record<string, unknown>;
  logprobs?: unknown;
  finish?: string;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Whitespace-separated words, each keeping its trailing whitespace (leading whitespace joins the first). */
export function tokenize(text: string): string[] {
  const words = text.match(/\S+\s*/g) ?? [];
  const lead = /^\s+/.exec(text)?.[0];
  if (lead && words.length) words[0] = lead + words[0];
  return words;
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .filter((p) => p && p.type === 'text' && typeof p.text === 'string')
    .map((p) => p.text as string)
    .join('\n');
}

function countWords(text: string): number {
  return text.match(/\S+/g)?.length ?? 0;
}

function promptTokens(messages: any[]): number {
  let n = 0;
  for (const m of messages) n += countWords(textOf(m?.content)) + 1;
  return n;
}

const EMBEDDING_DIMENSIONS = 16;

/** The text's deterministic unit vector: mulberry32 seeded by the FNV-1a hash of its UTF-8 bytes. */
export function hashVector(text: string, dims: number): number[] {
  let h = 2166136261;
  for (const b of Buffer.from(text, 'utf8')) h = Math.imul(h ^ b, 16777619) >>> 0;
  let a = h;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const v = Array.from({ length: dims }, () => next() * 2 - 1);
  const norm = Math.hypot(...v) || 1;
  return v.map((x) => x / norm);
}

function parseScript(text: string): Script {
  const s: Script = {
    markdown: false,
    code: false,
    json: false,
    echoRequest: false,
    echo: false,
    think: false,
    reasoning: false,
    tools: [],
    tools2: false,
    slowMs: 0,
    delayMs: 0,
    failMid: false,
    errorMid: false,
    context: false,
    hang: false,
  };
  for (const [, name, arg = ''] of text.matchAll(MARKER)) {
    const num = Number(arg);
    switch (name) {
      case 'reply':
        s.reply = arg;
        break;
      case 'tokens':
        s.tokens = Math.max(0, Math.floor(num) || 0);
        break;
      case 'markdown':
        s.markdown = true;
        break;
      case 'code':
        s.code = true;
        break;
      case 'json':
        s.json = true;
        break;
      case 'echo_request':
        s.echoRequest = true;
        break;
      case 'echo':
        s.echo = true;
        break;
      case 'think':
        s.think = true;
        break;
      case 'reasoning':
        s.reasoning = true;
        break;
      case 'tool': {
        const colon = arg.indexOf(':');
        s.tools.push(colon < 0 ? { name: arg, args: '{}' } : { name: arg.slice(0, colon), args: arg.slice(colon + 1) });
        break;
      }
      case 'tools2':
        s.tools2 = true;
        break;
      case 'slow':
        s.slowMs = Math.max(0, num || 0);
        break;
      case 'delay':
        s.delayMs = Math.max(0, num || 0);
        break;
      case 'fail_mid':
        s.failMid = true;
        break;
      case 'error_mid':
        s.errorMid = true;
        break;
      case 'status':
        s.status = num >= 200 && num <= 599 ? Math.floor(num) : 500;
        break;
      case 'context':
        s.context = true;
        break;
      case 'hang':
        s.hang = true;
        break;
      case 'cached':
        s.cached = Math.max(0, Math.floor(num) || 0);
        break;
    }
  }
  return s;
}

function contentPieces(s: Script, body: any, userText: string): string[] {
  if (s.reply !== undefined) return tokenize(s.reply);
  if (s.tokens !== undefined) return Array.from({ length: s.tokens }, (_, i) => `w${i + 1}${i < s.tokens! - 1 ? ' ' : ''}`);
  if (s.markdown) return tokenize(MARKDOWN_REPLY);
  if (s.code) return tokenize(CODE_REPLY);
  if (s.json) return ['{"answer":42}'];
  if (s.echoRequest) {
    // Split by code points so no chunk ends in half a surrogate pair.
    const chars = Array.from(JSON.stringify(body.messages));
    const out: string[] = [];
    for (let i = 0; i < chars.length; i += 40) out.push(chars.slice(i, i + 40).join(''));
    return out;
  }
  if (s.echo) return tokenize(userText.replace(MARKER_WITH_SPACE, '').trim());
  return tokenize(DEFAULT_REPLY);
}

/** Cut before the first occurrence of any stop string. */
function cutAtStop(pieces: string[], stop: unknown): { pieces: string[]; stopped: boolean } {
  const stops = (Array.isArray(stop) ? stop : [stop]).filter((x): x is string => typeof x === 'string' && x !== '');
  if (!stops.length) return { pieces, stopped: false };
  const text = pieces.join('');
  let at = -1;
  for (const st of stops) {
    const i = text.indexOf(st);
    if (i >= 0 && (at < 0 || i < at)) at = i;
  }
  if (at < 0) return { pieces, stopped: false };
  const out: string[] = [];
  let pos = 0;
  for (const p of pieces) {
    if (pos >= at) break;
    out.push(p.slice(0, at - pos));
    pos += p.length;
  }
  return { pieces: out, stopped: true };
}

function logprobEntry(token: string, i: number, top: number) {
  const bytes = [...Buffer.from(token, 'utf8')];
  const logprob = -(i + 1) / 10;
  const alts = [];
  for (let j = 0; j < top; j++) {
    alts.push(j === 0 ? { token, logprob, bytes } : { token: `alt${j}`, logprob: -(i + 1 + 10 * j) / 10, bytes: [...Buffer.from(`alt${j}`)] });
  }
  return { token, logprob, bytes, top_logprobs: alts };
}

/** Tool-call arguments in 2+ fragments of at most 8 characters. */
function splitArgs(args: string): string[] {
  const size = Math.max(1, Math.min(8, Math.ceil(args.length / 2)));
  const out: string[] = [];
  for (let i = 0; i < args.length; i += size) out.push(args.slice(i, i + size));
  return out.length >= 2 ? out : [...out, ''];
}

function errorBody(message: string, type: string, param: string | null = null, code: string | null = null) {
  return { error: { message, type, param, code } };
}

function statusError(status: number) {
  if (status === 400) return errorBody(`scripted bad request (scripted status ${status})`, 'invalid_request_error');
  const type =
    status === 401
      ? 'authentication_error'
      : status === 403
        ? 'permission_error'
        : status === 404
          ? 'not_found_error'
          : status === 429
            ? 'rate_limit_error'
            : status >= 500
              ? 'server_error'
              : 'invalid_request_error';
  return errorBody(`scripted status ${status}`, type, null, status === 429 ? 'rate_limit_exceeded' : null);
}

export async function startScriptedEngine(opts: ScriptedEngineOptions = {}): Promise<ScriptedEngine> {
  const host = opts.host ?? '127.0.0.1';
  const name = opts.name ?? 'scripted';
  const globalDelay = opts.delayMs ?? 0;
  const sockets = new Set<Socket>();
  let seq = 0;
  let toolSeq = 0;

  const sendJson = (res: ServerResponse, status: number, obj: unknown) => {
    const s = JSON.stringify(obj);
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(s), 'x-replica': name });
    res.end(s);
  };

  async function embed(req: IncomingMessage, res: ServerResponse, raw: Buffer) {
    let body: any;
    try {
      body = JSON.parse(raw.toString('utf8'));
    } catch {
      return sendJson(res, 400, errorBody('Request body is not valid JSON', 'invalid_request_error'));
    }
    const inputs: unknown[] = typeof body?.input === 'string' ? [body.input] : Array.isArray(body?.input) ? body.input : [];
    if (inputs.length === 0 || !inputs.every((t) => typeof t === 'string' && t.length > 0)) {
      return sendJson(res, 400, errorBody('input must be a non-empty string or array of non-empty strings', 'invalid_request_error', 'input'));
    }
    engine.embeddingRequests.push({ body, headers: req.headers, at: Date.now() });
    if (engine.embeddingRequests.length > 2 * MAX_RECORDED) engine.embeddingRequests.splice(0, engine.embeddingRequests.length - MAX_RECORDED);
    const texts = inputs as string[];
    const script = parseScript(texts.join('\n'));
    if (globalDelay > 0) await sleep(globalDelay);
    if (script.delayMs > 0) await sleep(script.delayMs);
    if (script.context) {
      return sendJson(res, 400, errorBody("This model's maximum context length is 512 tokens.", 'invalid_request_error', 'input', 'context_length_exceeded'));
    }
    if (script.status) return sendJson(res, script.status, statusError(script.status));
    const dims = Number.isInteger(body.dimensions) && body.dimensions > 0 ? body.dimensions : EMBEDDING_DIMENSIONS;
    const data = texts.map((text, index) => {
      const v = hashVector(text, dims);
      let embedding: number[] | string = v;
      if (body.encoding_format === 'base64') {
        const buf = Buffer.alloc(v.length * 4);
        v.forEach((x, i) => buf.writeFloatLE(x, i * 4));
        embedding = buf.toString('base64');
      }
      return { object: 'embedding', index, embedding };
    });
    const words = texts.reduce((n, t) => n + countWords(t), 0);
    sendJson(res, 200, { object: 'list', model: body.model ?? 'scripted', data, usage: { prompt_tokens: words, total_tokens: words } });
  }

  async function chat(req: IncomingMessage, res: ServerResponse, raw: Buffer) {
    let body: any;
    try {
      body = JSON.parse(raw.toString('utf8'));
    } catch {
      return sendJson(res, 400, errorBody('Request body is not valid JSON', 'invalid_request_error'));
    }
    if (!body || typeof body !== 'object' || !Array.isArray(body.messages)) {
      return sendJson(res, 400, errorBody('messages must be an array', 'invalid_request_error', 'messages'));
    }
    engine.requests.push({ body, headers: req.headers, at: Date.now() });
    if (engine.requests.length > 2 * MAX_RECORDED) engine.requests.splice(0, engine.requests.length - MAX_RECORDED);

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

    // Track the client going away, so waits stop early and streams count as aborted.
    let closed = false;
    let ownDestroy = false;
    let streamOpen = stream;
    if (stream) engine.openStreams++;
    const endStream = () => {
      if (streamOpen) {
        streamOpen = false;
        engine.openStreams = Math.max(0, engine.openStreams - 1);
      }
    };
    const gone = new Promise<void>((resolve) =>
      res.once('close', () => {
        closed = true;
        if (!res.writableEnded && !ownDestroy && streamOpen) engine.abortedStreams++;
        endStream();
        resolve();
      }),
    );

    if (globalDelay > 0) await sleep(globalDelay);
    if (s.delayMs > 0) await sleep(s.delayMs);
    if (closed) return;
    if (s.hang) return gone;
    const finish = (fn: () => void) => {
      fn();
      endStream();
    };
    if (s.context) {
      const p = promptTokens(messages);
      return finish(() =>
        sendJson(
          res,
          400,
          errorBody(
            `This model's maximum context length is 4096 tokens. However, you requested ${4096 + p} tokens ` +
              `(${4096 + p} in the messages, 0 in the completion). Please reduce the length of the messages or completion.`,
            'invalid_request_error',
            'messages',
            'context_length_exceeded',
          ),
        ),
      );
    }
    if (s.status !== undefined) return finish(() => sendJson(res, s.status!, statusError(s.status!)));

    // Tool calls only while the model has not yet seen a tool result for this user turn.
    const toolTurn = !messages.slice(lastUser + 1).some((m) => m?.role === 'tool');
    let calls: ToolCallOut[] = [];
    if (toolTurn && (s.tools.length || s.tools2)) {
      const named = [...s.tools];
      if (s.tools2) {
        const fns = (Array.isArray(body.tools) ? body.tools : []).slice(0, 2).map((t: any) => t?.function?.name);
        if (fns.length < 2 || fns.some((f: unknown) => typeof f !== 'string')) {
          return finish(() => sendJson(res, 400, errorBody('scripted: [[tools2]] needs request.tools with two functions', 'invalid_request_error', 'tools')));
        }
        for (const f of fns) named.push({ name: f, args: '{}' });
      }
      calls = named.map((c) => ({ id: `call_${++toolSeq}`, name: c.name, args: c.args }));
    }

    // Build one choice's steps (all choices of a request are identical).
    const maxTokens = body.max_completion_tokens ?? body.max_tokens;
    let reasoning = s.reasoning ? tokenize(REASONING_TEXT) : [];
    let content: string[] = [];
    let finishReason = calls.length ? 'tool_calls' : 'stop';
    if (!calls.length) {
      let pieces = contentPieces(s, body, userText);
      if (s.think) pieces = [...THINK_PIECES, ...pieces];
      content = cutAtStop(pieces, body.stop).pieces;
    }
    if (typeof maxTokens === 'number' && maxTokens >= 0 && reasoning.length + content.length > maxTokens) {
      reasoning = reasoning.slice(0, maxTokens);
      content = content.slice(0, maxTokens - reasoning.length);
      finishReason = 'length';
    }
    const top = body.logprobs === true ? Math.max(0, Math.min(20, Number(body.top_logprobs) || 0)) : -1;
    const entries = top >= 0 ? content.map((t, i) => logprobEntry(t, i, top)) : null;
    const callFragments = calls.map((c, index) => [
      { index, id: c.id, type: 'function', function: { name: c.name, arguments: '' } },
      ...splitArgs(c.args).map((a) => ({ index, function: { arguments: a } })),
    ]);
    const perChoice = reasoning.length + content.length + callFragments.reduce((n, f) => n + f.length, 0);

    const n = Math.max(1, Math.min(128, Math.floor(Number(body.n)) || 1));
    const usage: Record<string, unknown> = {
      prompt_tokens: promptTokens(messages),
      completion_tokens: perChoice * n,
      total_tokens: 0,
    };
    usage.total_tokens = (usage.prompt_tokens as number) + (usage.completion_tokens as number);
    if (s.cached !== undefined) usage.prompt_tokens_details = { cached_tokens: s.cached };
    if (s.reasoning) usage.completion_tokens_details = { reasoning_tokens: reasoning.length * n };

    const id = `chatcmpl-scripted-${++seq}`;
    const created = Math.floor(Date.now() / 1000);
    const model = typeof body.model === 'string' ? body.model : 'scripted';

    if (!stream) {
      if (s.slowMs > 0) await sleep(s.slowMs * perChoice);
      if (closed) return;
      if (s.failMid) {
        ownDestroy = true;
        req.socket.destroy();
        return;
      }
      const message: Record<string, unknown> = { role: 'assistant', content: calls.length ? null : content.join('') };
      if (s.reasoning) message.reasoning_content = reasoning.join('');
      if (calls.length) {
        message.tool_calls = calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.args } }));
      }
      const choices = Array.from({ length: n }, (_, index) => ({
        index,
        message,
        finish_reason: finishReason,
        logprobs: entries ? { content: entries } : null,
      }));
      return sendJson(res, 200, { id, object: 'chat.completion', created, model, choices, usage, system_fingerprint: 'scripted' });
    }

    const steps: Step[] = [{ delta: { role: 'assistant', content: '' } }];
    for (const r of reasoning) steps.push({ delta: { reasoning_content: r } });
    content.forEach((c, i) => steps.push({ delta: { content: c }, logprobs: entries ? { content: [entries[i]] } : undefined }));
    for (const frags of callFragments) for (const f of frags) steps.push({ delta: { tool_calls: [f] } });
    steps.push({ delta: {}, finish: finishReason });

    const frame = (choices: unknown[], extra?: Record<string, unknown>) =>
      `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, system_fingerprint: 'scripted', choices, ...extra })}\n\n`;

    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'x-replica': name });
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
        if (closed) return;
        const choice = { index, delta: step.delta, logprobs: step.logprobs ?? null, finish_reason: step.finish ?? null };
        send(frame([choice]));
        if (step.finish || 'role' in step.delta || ++tokenChunks < 3) continue;
        if (s.failMid) {
          ownDestroy = true;
          // Destroy once the chunks reached the kernel, so the client sees them and then an abrupt close.
          return flush('', () => req.socket.destroy());
        }
        if (s.errorMid) {
          flush(`data: ${JSON.stringify({ error: { message: 'upstream exploded', type: 'server_error' } })}\n\ndata: [DONE]\n\n`);
          return endStream();
        }
      }
    }
    if (body.stream_options?.include_usage === true) send(frame([], { usage }));
    flush('data: [DONE]\n\n');
    endStream();
  }

  const server = http.createServer({ noDelay: true }, (req, res) => {
    const url = req.url ?? '/';
    const route = url.split('?')[0];
    if (req.method === 'GET' && route === '/health') return sendJson(res, 200, { status: 'ok' });
    if (req.method === 'GET' && route === '/v1/models') {
      return sendJson(res, 200, {
        object: 'list',
        data: [{ id: 'scripted', object: 'model', created: 0, owned_by: 'scripted', max_model_len: 4096 }],
      });
    }
    if (req.method === 'POST' && route === '/v1/embeddings') {
      const parts: Buffer[] = [];
      req.on('data', (c: Buffer) => parts.push(c));
      req.on('end', () => {
        embed(req, res, Buffer.concat(parts)).catch((err) => {
          if (!res.headersSent) sendJson(res, 500, errorBody(`scripted engine error: ${err?.message}`, 'server_error'));
          else res.destroy();
        });
      });
      return;
    }
    if (req.method === 'POST' && route === '/v1/chat/completions') {
      const parts: Buffer[] = [];
      req.on('data', (c: Buffer) => parts.push(c));
      req.on('end', () => {
        chat(req, res, Buffer.concat(parts)).catch((err) => {
          if (!res.headersSent) sendJson(res, 500, errorBody(`scripted engine error: ${err?.message}`, 'server_error'));
          else res.destroy();
        });
      });
      return;
    }
    sendJson(res, 404, errorBody(`No route for ${req.method} ${route}`, 'not_found_error'));
  });
  server.keepAliveTimeout = 65_000; // outlive clients' pooled keep-alive sockets, so the benchmark never races a close
  server.on('connection', (socket) => {
    socket.setNoDelay(true);
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as { port: number }).port;
  const shownHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;

  const engine: ScriptedEngine = {
    url: `http://${shownHost}:${port}/v1`,
    name,
    requests: [],
    embeddingRequests: [],
    abortedStreams: 0,
    openStreams: 0,
    reset() {
      engine.requests.length = 0;
      engine.embeddingRequests.length = 0;
      engine.abortedStreams = 0;
      engine.openStreams = 0;
      toolSeq = 0;
    },
    close() {
      return new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const s of sockets) s.destroy();
      });
    },
  };
  return engine;
}

// CLI: run until killed.
if (process.argv[1] && path.resolve(process.argv[1]) === import.meta.filename) {
  const { values } = parseArgs({
    options: {
      port: { type: 'string', default: '8765' },
      host: { type: 'string', default: '127.0.0.1' },
      'delay-ms': { type: 'string', default: '0' },
      name: { type: 'string', default: 'scripted' },
    },
  });
  const engine = await startScriptedEngine({
    port: Number(values.port),
    host: values.host,
    delayMs: Number(values['delay-ms']),
    name: values.name,
  });
  console.log(engine.url);
  const stop = () => {
    engine.close().then(() => process.exit(0));
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}
