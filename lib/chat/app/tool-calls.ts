// The tool calls of one model round, gathered from their streamed fragments, and run one after another against
// the answer's tools: each becomes a step the transcript shows (arguments, result, timing) and a `tool` message the
// next round reads. A call to an unknown tool, with arguments that are not a JSON object, or that fails, still gets
// a result: the model reads why, and the loop goes on.
import type { ToolStep } from '../../conversations/conversations.ts';
import { recordToolCall } from '../../metrics/registry.ts';
import type { Tool } from '../../tools/tool.ts';
import { messageOf } from '../../tools/mcp-client.ts';
import type { InferenceEvent } from './inference.ts';

/** Arguments as stored on the step (the model's text, cut): enough to show, never megabytes. */
const MAX_SHOWN_ARGS = 4000;
/** A result as stored on the step (the model reads it whole, up to LAGOON_TOOL_RESULT_MAX_CHARS). */
const MAX_SHOWN_RESULT = 100_000;
/** The most calls one round may make; more are answered "not called". */
const MAX_CALLS_PER_ROUND = 16;

export interface PendingCall {
  id: string;
  name: string;
  arguments: string;
}

export class CallCollector {
  private readonly calls = new Map<number, PendingCall>();

  add(ev: Extract<InferenceEvent, { type: 'tool_call' }>): void {
    let c = this.calls.get(ev.index);
    if (!c) {
      c = { id: '', name: '', arguments: '' };
      this.calls.set(ev.index, c);
    }
    if (ev.id) c.id = ev.id;
    if (ev.name) c.name += ev.name;
    if (ev.arguments && c.arguments.length < 1_000_000) c.arguments += ev.arguments;
  }

  /** The calls in index order, each with an id (one is made up when the model sent none). */
  list(round: number): PendingCall[] {
    return [...this.calls.entries()].sort(([a], [b]) => a - b).map(([i, c]) => ({ ...c, id: c.id || `call_r${round}_${i}` }));
  }
}

/** The assistant message of a round that called tools, as the next round's request carries it. */
export const assistantCallMessage = (content: string, calls: PendingCall[]) => ({
  role: 'assistant',
  content: content || null,
  tool_calls: calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } })),
});

function parseArgs(text: string): Record<string, unknown> | string {
  if (!text.trim()) return {};
  try {
    const v = JSON.parse(text) as unknown;
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : 'the arguments must be a JSON object';
  } catch {
    return 'the arguments are not valid JSON';
  }
}

/**
 * Runs the round's calls in order; `onStep` sees each step when it starts and when it ends. Returns the `tool`
 * messages for the next round. Stops early (the rest answered "not called") when `signal` aborts.
 */
export async function runCalls(
  calls: PendingCall[],
  tools: readonly Tool[],
  round: number,
  signal: AbortSignal,
  onStep: (s: ToolStep) => void,
): Promise<Record<string, unknown>[]> {
  const messages: Record<string, unknown>[] = [];
  for (const [i, call] of calls.entries()) {
    const tool = tools.find((t) => t.name === call.name);
    const step: ToolStep = {
      id: call.id,
      round,
      name: call.name.slice(0, 200),
      server: tool?.server ?? null,
      arguments: call.arguments.slice(0, MAX_SHOWN_ARGS),
      status: 'running',
      result: '',
      startedAt: Date.now(),
      ms: null,
    };
    const end = (status: 'done' | 'error', result: string, truncated = false) => {
      step.status = status;
      step.result = result.slice(0, MAX_SHOWN_RESULT);
      if (truncated) step.truncated = true;
      step.ms = Date.now() - step.startedAt;
      if (tool) recordToolCall(tool.server ? 'mcp' : 'builtin', status);
      onStep({ ...step });
      messages.push({ role: 'tool', tool_call_id: call.id, content: result });
    };
    onStep({ ...step });
    if (signal.aborted) {
      end('error', 'Not called: the answer was stopped or ran out of time.');
      continue;
    }
    if (i >= MAX_CALLS_PER_ROUND) {
      end('error', `Not called: at most ${MAX_CALLS_PER_ROUND} tool calls a round.`);
      continue;
    }
    if (!tool) {
      end('error', `Not called: there is no tool named ${JSON.stringify(call.name.slice(0, 100))}.`);
      continue;
    }
    const args = parseArgs(call.arguments);
    if (typeof args === 'string') {
      end('error', `Not called: ${args}.`);
      continue;
    }
    try {
      const r = await tool.run(args, { signal });
      end(r.isError ? 'error' : 'done', r.text, r.truncated);
    } catch (e) {
      end('error', `The tool failed: ${messageOf(e)}`);
    }
  }
  return messages;
}
