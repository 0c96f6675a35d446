// What a chat completion answers, before it is sent: the reply text a script picks (canned replies, echoes, counted
// tokens, <think> and reasoning), cut by stop strings and max tokens, tool calls split into argument fragments,
// logprobs and usage. The plain reply (completionBody here) and the streamed one (stream.ts) are the same answer
// sent two ways, so all the choosing happens once, here.

import { type Script, stripMarkers } from './markers.ts';
import { promptTokens, tokenize } from './tokens.ts';

const DEFAULT_REPLY = 'Hello from the scripted engine.';

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

export interface ToolCallOut {
  id: string;
  name: string;
  args: string;
}

/** The envelope every chunk and the plain reply share. */
export interface CompletionHead {
  id: string;
  created: number;
  model: string;
}

/** One choice's answer (all choices of a request are identical), with what the whole request counts. */
export interface Answer {
  calls: ToolCallOut[];
  reasoning: string[];
  content: string[];
  finishReason: string;
  /** The content tokens' logprobs, or null when the request did not ask for them. */
  entries: ReturnType<typeof logprobEntry>[] | null;
  /** Each tool call as streamed: the call with empty arguments, then its argument fragments. */
  callFragments: Record<string, unknown>[][];
  /** Tokens one choice emits. */
  perChoice: number;
  /** How many choices. */
  n: number;
  usage: Record<string, unknown>;
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
  if (s.echo) return tokenize(stripMarkers(userText).trim());
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

/** The answer to `body` as scripted by `s` (read from `userText`), given the tool calls it makes. */
export function composeAnswer(s: Script, body: any, userText: string, calls: ToolCallOut[]): Answer {
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
    prompt_tokens: promptTokens(body.messages),
    completion_tokens: perChoice * n,
    total_tokens: 0,
  };
  usage.total_tokens = (usage.prompt_tokens as number) + (usage.completion_tokens as number);
  if (s.cached !== undefined) usage.prompt_tokens_details = { cached_tokens: s.cached };
  if (s.reasoning) usage.completion_tokens_details = { reasoning_tokens: reasoning.length * n };
  return { calls, reasoning, content, finishReason, entries, callFragments, perChoice, n, usage };
}

/** The plain (non-stream) chat.completion body of an answer. */
export function completionBody(s: Script, a: Answer, head: CompletionHead) {
  const message: Record<string, unknown> = { role: 'assistant', content: a.calls.length ? null : a.content.join('') };
  if (s.reasoning) message.reasoning_content = a.reasoning.join('');
  if (a.calls.length) {
    message.tool_calls = a.calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.args } }));
  }
  const choices = Array.from({ length: a.n }, (_, index) => ({
    index,
    message,
    finish_reason: a.finishReason,
    logprobs: a.entries ? { content: a.entries } : null,
  }));
  return { id: head.id, object: 'chat.completion', created: head.created, model: head.model, choices, usage: a.usage, system_fingerprint: 'scripted' };
}
