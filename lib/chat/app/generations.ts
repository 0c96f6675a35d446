// Live answers. A generation belongs to the server, not to the browser connection that asked for it: it runs to
// the end (or until stopped) whether or not anyone is watching, any number of streams attach and reattach to it,
// and its row is kept current (about once a second) so a reload, or a reader on another instance, can catch up.
import { isApiError } from '../../api/errors.ts';
import type { Citation, ConversationOps, Message, MessageError, ToolStep } from '../../conversations/conversations.ts';
import { newRequestId } from '../../http/request-id.ts';
import type { ChatTools, ToolLimits } from '../../tools/registry.ts';
import { type Tool, toolsParam } from '../../tools/tool.ts';
import type { User } from '../../users/users.ts';
import type { AppCitation, AppUsage, GenerationEvent } from '../../wire.ts';
import { appErrorOf, type InferenceClient, type InferenceEvent, type InferenceRun } from './inference.ts';
import { assistantCallMessage, CallCollector, runCalls } from './tool-calls.ts';
import { toAppMessage } from '../../conversations/message.ts';
import { CitationRewriter } from '../../augment/citations.ts';
import { log } from '../../log.ts';

/** Progress is written this often while tokens arrive. */
export const PERSIST_MS = 1000;
/** A quiet generation (a model thinking in silence) still touches its row this often, so readers know it lives. */
export const ALIVE_MS = 5000;
/** How long shutdown waits for generations to write their final state. */
const CLOSE_WAIT_MS = 10_000;
/** The messages table caps content; an answer longer than that is kept up to the cap. */
const MAX_STORED = 2_000_000;

type StopReason = 'user' | 'shutdown' | 'elsewhere' | 'deleted';

export interface GenerationSpec {
  user: User;
  /** Where the answer is written: the chat's operations, or memory for a temporary chat (temporary.ts). */
  ops: Pick<ConversationOps, 'message' | 'updateMessage'>;
  /** The assistant row, created with status 'streaming'. */
  message: Message;
  /** The chat completion request (see prompt.ts). */
  body: Record<string, unknown>;
  /** The app request that started it: its usage row's id (the first model round's; later rounds get their own). */
  requestId: string;
  /** Sources the prompt gave before any search (knowledge passages): cited from 1; web results are numbered after. */
  citations?: AppCitation[];
  /** Server-side tools (lib/tools): loaded when the answer starts, called in a loop bounded by `limits`. */
  tools?: AnswerTools;
}

export interface AnswerTools {
  load(signal: AbortSignal): Promise<ChatTools>;
  limits: ToolLimits;
}

export class Generation {
  readonly id: string;
  content = '';
  reasoning = '';
  citations: AppCitation[] = [];
  toolSteps: ToolStep[] = [];
  /** Resolves with the stored final message once the generation has ended and been written. */
  readonly finished: Promise<Message>;

  private readonly spec: Omit<GenerationSpec, 'body'>;
  /** The request, dropped once sent: it can hold megabytes of attached files. */
  private body: Record<string, unknown> | undefined;
  private readonly controller = new AbortController();
  private readonly subscribers = new Set<(e: GenerationEvent) => void>();
  private stopReason: StopReason | undefined;
  private modelId: string | null;
  private usage: AppUsage | null = null;
  /** The current model round sent its usage (a round that did not is looked up after it ends). */
  private roundBilled = false;
  private error: MessageError | null = null;
  private dirty = false;
  private lastWrite = Date.now();
  private writing: Promise<void> | undefined;
  private ended = false;
  private resolveFinished!: (m: Message) => void;
  /** The prompt's own sources, and the rewrite of the model's bracket citations of them into the caret form. */
  private readonly given: AppCitation[];
  private readonly rewriter: CitationRewriter | undefined;

  constructor(spec: GenerationSpec) {
    const { body, citations, ...rest } = spec;
    this.spec = rest;
    this.body = body;
    this.given = citations ?? [];
    this.citations = [...this.given];
    this.dirty = this.given.length > 0;
    this.rewriter = this.given.length ? new CitationRewriter(this.given.length) : undefined;
    this.id = spec.message.id;
    this.modelId = spec.message.modelId;
    this.finished = new Promise((resolve) => (this.resolveFinished = resolve));
  }

  get userId(): string {
    return this.spec.user.id;
  }

  /** Everything so far, for a stream that attaches now. */
  snapshot(): GenerationEvent {
    const snap: GenerationEvent = { type: 'snapshot', content: this.content, reasoning: this.reasoning, citations: this.citations, status: 'streaming' };
    if (this.toolSteps.length) snap.toolSteps = this.toolSteps.map((s) => ({ ...s }));
    return snap;
  }

  /** Receives every later event, ending with `done`. Returns the unsubscribe function. */
  subscribe(fn: (e: GenerationEvent) => void): () => void {
    this.subscribers.add(fn);
    return () => this.subscribers.delete(fn);
  }

  /** Ends the generation early; what was produced is kept (status 'stopped') and billed by the pipeline. */
  stop(reason: StopReason): void {
    if (this.ended || this.stopReason) return;
    this.stopReason = reason;
    this.controller.abort();
  }

  private emit(e: GenerationEvent): void {
    for (const fn of this.subscribers) {
      try {
        fn(e);
      } catch (err) {
        log.error({ err }, 'a generation stream subscriber failed');
      }
    }
  }

  private apply(ev: InferenceEvent): void {
    switch (ev.type) {
      case 'content': {
        const text = this.rewriter ? this.rewriter.push(ev.text) : ev.text;
        if (!text) return;
        this.content += text;
        this.emit({ type: 'delta', content: text });
        break;
      }
      case 'reasoning':
        this.reasoning += ev.text;
        this.emit({ type: 'delta', reasoning: ev.text });
        break;
      case 'citations':
        this.citations = [...this.given, ...ev.citations];
        this.emit({ type: 'citations', citations: this.citations });
        break;
      case 'model':
        this.modelId = ev.id;
        return;
      case 'usage':
        this.addUsage(ev.usage);
        this.roundBilled = true;
        return;
      case 'error':
        this.error = ev.error;
        return;
      case 'tool_call':
        return;
    }
    this.dirty = true;
  }

  /** Every model round is billed on its own; the answer shows their sum. */
  private addUsage(u: AppUsage): void {
    const t = this.usage;
    this.usage = t
      ? {
          promptTokens: t.promptTokens + u.promptTokens,
          completionTokens: t.completionTokens + u.completionTokens,
          totalTokens: t.totalTokens + u.totalTokens,
          costUsd: Math.round((t.costUsd + u.costUsd) * 1e6) / 1e6,
          costDiem: Math.round((t.costDiem + u.costDiem) * 1e6) / 1e6,
        }
      : { ...u };
  }

  /** A tool step began or ended: kept (by id) and sent to every stream. */
  private step(s: ToolStep): void {
    const i = this.toolSteps.findIndex((x) => x.id === s.id && x.round === s.round);
    if (i >= 0) this.toolSteps[i] = s;
    else this.toolSteps.push(s);
    this.dirty = true;
    this.emit({ type: 'tool', step: { ...s } });
  }

  private progress(): { content: string; reasoning: string | null; citations: Citation[]; toolSteps?: ToolStep[] } {
    return {
      content: this.content.slice(0, MAX_STORED),
      reasoning: this.reasoning ? this.reasoning.slice(0, MAX_STORED) : null,
      citations: this.citations.slice(0, 500) as Citation[],
      ...(this.toolSteps.length ? { toolSteps: this.toolSteps.slice(0, 200) } : {}),
    };
  }

  /** Writes progress when there is some (or to show the row is alive); notices a stop or delete from elsewhere. */
  tick(): void {
    if (this.ended || this.writing) return;
    if (!this.dirty && Date.now() - this.lastWrite < ALIVE_MS) return;
    this.dirty = false;
    const { ops } = this.spec;
    this.writing = ops
      .updateMessage(this.id, this.progress(), { ifStatus: 'streaming', quiet: true })
      .then(async (written) => {
        this.lastWrite = Date.now();
        if (written) return;
        // No longer 'streaming': stopped through another instance (or declared interrupted). Adopt its verdict.
        const row = await ops.message(this.id);
        if (row.status === 'error' && row.error) this.error = row.error;
        this.stop('elsewhere');
      })
      .catch((e) => {
        if (isApiError(e) && e.code === 'NOT_FOUND') this.stop('deleted');
        else log.error({ err: e }, `could not save the progress of answer ${this.id}`);
      })
      .finally(() => {
        this.writing = undefined;
      });
  }

  /** Runs to the end; `onEnd` is called just before `done` goes out, so no stream can attach after it. */
  async run(client: InferenceClient, onEnd: () => void): Promise<void> {
    const loop = this.spec.tools;
    // With tools, the whole loop has a deadline: past it, what was produced is kept and the answer says why it ended.
    const timeUp = new AbortController();
    const timer = loop ? setTimeout(() => timeUp.abort(), loop.limits.totalMs) : undefined;
    const signal = loop ? AbortSignal.any([this.controller.signal, timeUp.signal]) : this.controller.signal;
    let run: InferenceRun | undefined;
    try {
      const body = this.body ?? {};
      this.body = undefined;
      const tools = loop ? await this.loadTools(loop, signal) : [];
      const messages = Array.isArray(body.messages) ? [...(body.messages as unknown[])] : [];
      for (let round = 0; ; round++) {
        // The last round the limit allows asks for an answer without tools.
        const last = !loop || round + 1 >= loop.limits.maxRounds;
        const request = tools.length ? { ...body, messages, tools: toolsParam(tools), ...(last ? { tool_choice: 'none' } : {}) } : body;
        this.roundBilled = false;
        run = await client.start(this.spec.user, request, { signal, requestId: round === 0 ? this.spec.requestId : newRequestId() });
        const calls = new CallCollector();
        let said = '';
        for await (const ev of run.events) {
          if (ev.type === 'tool_call') calls.add(ev);
          else if (ev.type === 'content') said += ev.text;
          this.apply(ev);
          if (signal.aborted) break;
        }
        const pending = calls.list(round);
        if (!tools.length || !pending.length || signal.aborted || this.error) break;
        if (last) {
          this.error = {
            code: 'TOOL_ROUNDS_EXCEEDED',
            status: 400,
            message: `The model still called tools after ${round + 1} rounds, the most one answer may make`,
          };
          break;
        }
        messages.push(assistantCallMessage(said, pending));
        messages.push(...(await runCalls(pending, tools, round, signal, (s) => this.step(s))));
        if (signal.aborted) break;
        if (said && !/\s$/.test(this.content)) this.apply({ type: 'content', text: '\n\n' });
      }
    } catch (e) {
      // A stop aborts the request; that is not a failure.
      if (!signal.aborted) this.error = appErrorOf(e);
    }
    clearTimeout(timer);
    if (timeUp.signal.aborted && !this.stopReason && !this.error) {
      this.error = {
        code: 'TOOL_TIME_EXCEEDED',
        status: 504,
        message: `The answer ran out of time for tools (${Math.round((loop?.limits.totalMs ?? 0) / 1000)} s)`,
      };
    }
    // What the citation rewrite held back (a possible marker at the very end) is the answer's last words.
    const rest = this.rewriter?.flush();
    if (rest) {
      this.content += rest;
      this.emit({ type: 'delta', content: rest });
    }
    this.ended = true;
    if (!this.roundBilled && run && (signal.aborted || this.error)) {
      const u = await client.usageOf(run).catch(() => null);
      if (u) this.addUsage(u);
    }
    await this.writing;
    const final = await this.writeFinal();
    onEnd();
    this.emit({ type: 'done', message: toAppMessage(final) });
    this.subscribers.clear();
    this.resolveFinished(final);
  }

  /** The answer's tools; a server that cannot be reached shows as a failed step, and the answer goes on without it. */
  private async loadTools(loop: AnswerTools, signal: AbortSignal): Promise<Tool[]> {
    try {
      const { tools, unavailable } = await loop.load(signal);
      for (const [i, u] of unavailable.entries()) {
        this.step({
          id: `unavailable_${i}`,
          round: 0,
          name: u.server,
          server: null,
          arguments: '',
          status: 'error',
          result: u.error,
          startedAt: Date.now(),
          ms: 0,
        });
      }
      return tools;
    } catch (e) {
      if (signal.aborted) throw e;
      log.error({ err: e }, 'could not load the tools of an answer');
      return [];
    }
  }

  private async writeFinal(): Promise<Message> {
    // Stopped here: 'stopped'. Stopped elsewhere: that instance's verdict (stopped, or declared interrupted).
    const status = this.stopReason === 'elsewhere' ? (this.error ? 'error' : 'stopped') : this.stopReason ? 'stopped' : this.error ? 'error' : 'complete';
    const patch = {
      ...this.progress(),
      status,
      usage: this.usage ? { ...this.usage } : null,
      error: status === 'error' ? this.error : null,
      modelId: this.modelId,
    } satisfies Partial<Message>;
    const fallback: Message = { ...this.spec.message, ...patch, updatedAt: Date.now() };
    if (this.stopReason === 'deleted') return fallback;
    try {
      return await this.spec.ops.updateMessage(this.id, patch);
    } catch (e) {
      if (!(isApiError(e) && e.code === 'NOT_FOUND')) log.error({ err: e }, `could not save answer ${this.id}`);
      return fallback;
    }
  }
}

/** The live generations of this process, by assistant message id. */
export class Generations {
  private readonly live = new Map<string, Generation>();
  private readonly client: InferenceClient;
  private readonly timer: NodeJS.Timeout;
  private closing = false;

  constructor(client: InferenceClient) {
    this.client = client;
    this.timer = setInterval(() => {
      for (const g of this.live.values()) g.tick();
    }, PERSIST_MS);
    this.timer.unref();
  }

  get size(): number {
    return this.live.size;
  }

  /** Starts answering; the generation is registered before this returns, so a stream can attach at once. */
  start(spec: GenerationSpec): Generation {
    const g = new Generation(spec);
    this.live.set(g.id, g);
    if (this.closing) g.stop('shutdown');
    const end = () => {
      if (this.live.get(g.id) === g) this.live.delete(g.id);
    };
    void g.run(this.client, end).catch((e) => {
      end();
      log.error({ err: e }, `answer ${g.id} failed unexpectedly`);
    });
    return g;
  }

  /** The live generation of this message, if it belongs to this user. */
  get(messageId: string, userId: string): Generation | undefined {
    const g = this.live.get(messageId);
    return g && g.userId === userId ? g : undefined;
  }

  /** Shutdown: stops every generation and waits (bounded) for each to write what it produced as 'stopped'. */
  async close(): Promise<void> {
    this.closing = true;
    clearInterval(this.timer);
    const all = [...this.live.values()];
    for (const g of all) g.stop('shutdown');
    await Promise.race([Promise.allSettled(all.map((g) => g.finished)), new Promise((r) => setTimeout(r, CLOSE_WAIT_MS).unref())]);
  }
}
