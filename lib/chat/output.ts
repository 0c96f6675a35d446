// Engine output → the service's response shapes: `<think>` blocks moved to reasoning_content (or dropped when the
// request strips thinking), our ids and model names, usage with details, cost, and the parameters echo.
import { fromMicros, type Amount } from '../billing/money.ts';
import type { EngineChoice, EngineChunk, EngineUsage, FinishReason } from '../engines/text/types.ts';
import { CitationRewriter } from '../augment/citations.ts';
import type { ChatEvent, DeltaEvent } from './events.ts';
import { ThinkSplitter, splitThink } from './think.ts';

export function usageRecord(u: EngineUsage) {
  return {
    prompt_tokens: u.prompt_tokens,
    completion_tokens: u.completion_tokens,
    total_tokens: u.prompt_tokens + u.completion_tokens,
    prompt_tokens_details: u.cached_tokens !== undefined ? { cached_tokens: u.cached_tokens } : null,
    completion_tokens_details: u.reasoning_tokens !== undefined ? { reasoning_tokens: u.reasoning_tokens } : null,
  };
}

export const costRecord = (charged: Amount) => ({ usd: fromMicros(charged.usd), diem: fromMicros(charged.diem) });

const stopReason = (f: FinishReason | null) => (f === 'stop' || f === 'length' ? f : null);

/** One non-streamed choice in the response shape. */
export function shapeChoice(c: EngineChoice, keepReasoning: boolean) {
  const split = splitThink(c.message.content ?? '');
  const reasoning = [c.message.reasoning_content ?? '', split.reasoning].filter(Boolean).join('\n');
  const toolCalls = c.message.tool_calls ?? [];
  return {
    index: c.index,
    message: {
      role: 'assistant' as const,
      content: split.content || (toolCalls.length ? null : ''),
      reasoning_content: keepReasoning && reasoning ? reasoning : null,
      tool_calls: toolCalls,
    },
    finish_reason: c.finish_reason ?? 'stop',
    stop_reason: stopReason(c.finish_reason),
    logprobs: c.logprobs ?? null,
  };
}

interface ChoiceState {
  splitter: ThinkSplitter;
  citations?: CitationRewriter;
  text: string;
  pieces: number;
}

/**
 * Rewrites a stream's chunks one by one. Tracks what each choice produced so an aborted or failed stream can be
 * billed for its output when the engine never reported usage.
 */
export class StreamShaper {
  private readonly states = new Map<number, ChoiceState>();
  private readonly keepReasoning: boolean;
  private readonly citationSources: number | undefined;
  private readonly toolIndexShift: number;
  usage: EngineUsage | undefined;

  /**
   * `citationSources`: rewrite bracket citations (of that many sources) to the caret form as content streams.
   * `toolIndexShift`: tool calls sent ahead of the model's (the search documents) move the model's indexes up.
   */
  constructor(keepReasoning: boolean, citationSources?: number, toolIndexShift = 0) {
    this.keepReasoning = keepReasoning;
    this.citationSources = citationSources;
    this.toolIndexShift = toolIndexShift;
  }

  private state(i: number): ChoiceState {
    let s = this.states.get(i);
    if (!s) {
      s = { splitter: new ThinkSplitter(), text: '', pieces: 0 };
      if (this.citationSources !== undefined) s.citations = new CitationRewriter(this.citationSources);
      this.states.set(i, s);
    }
    return s;
  }

  /**
   * The chunk's choices as stream events (per choice: delta, tool_calls, finish); empty when nothing is left to
   * send (e.g. a held-back tag).
   */
  shape(chunk: EngineChunk): ChatEvent[] {
    if (chunk.usage) this.usage = chunk.usage;
    const out: ChatEvent[] = [];
    for (const c of chunk.choices) {
      const s = this.state(c.index);
      let reasoning = c.delta.reasoning_content ?? '';
      let content = '';
      if (c.delta.content) {
        s.pieces++;
        s.text += c.delta.content;
        const split = s.splitter.push(c.delta.content);
        content = split.content;
        reasoning += split.reasoning;
      } else if (c.delta.reasoning_content) {
        s.pieces++;
        s.text += c.delta.reasoning_content;
      }
      if (c.finish_reason) {
        const rest = s.splitter.flush();
        content += rest.content;
        reasoning += rest.reasoning;
      }
      if (s.citations) content = s.citations.push(content) + (c.finish_reason ? s.citations.flush() : '');
      if (c.delta.role || content || (reasoning && this.keepReasoning) || c.logprobs) {
        const delta: DeltaEvent = { type: 'delta', index: c.index };
        if (c.delta.role) delta.role = 'assistant';
        if (content) delta.content = content;
        if (reasoning && this.keepReasoning) delta.reasoning = reasoning;
        if (c.logprobs) delta.logprobs = c.logprobs;
        out.push(delta);
      }
      if (c.delta.tool_calls?.length) {
        const calls = this.toolIndexShift ? c.delta.tool_calls.map((t) => ({ ...t, index: (t.index ?? 0) + this.toolIndexShift })) : c.delta.tool_calls;
        out.push({ type: 'tool_calls', index: c.index, calls });
        s.pieces++;
        s.text += JSON.stringify(c.delta.tool_calls);
      }
      if (c.finish_reason) out.push({ type: 'finish', index: c.index, reason: c.finish_reason });
    }
    return out;
  }

  /** Completion pieces relayed so far (one per content delta, which is about one token for every engine we know). */
  get producedPieces(): number {
    let n = 0;
    for (const s of this.states.values()) n += s.pieces;
    return n;
  }

  get producedText(): string {
    return [...this.states.values()].map((s) => s.text).join('');
  }
}
