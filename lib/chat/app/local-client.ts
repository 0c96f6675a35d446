// Inference in this process: the same pipeline as POST /api/v1/chat/completions (validation, rate limits, credit
// hold, engine, billing), called for the user through the principal of their server-held key; no secret involved.
import { ApiError } from '../../api/errors.ts';
import { fromMicros } from '../../billing/money.ts';
import type { ChatStream, StreamHead } from '../events.ts';
import { runChat } from '../pipeline.ts';
import type { Service } from '../../service.ts';
import { principalForUser } from '../../users/users.ts';
import type { AppUsage } from '../../wire.ts';
import { appErrorOf, type InferenceClient, InferenceError, type InferenceEvent, type InferenceRun, toCitations } from './inference.ts';

// Request ids in the API layer's shape (24 hex characters, time first so usage rows append to their index).

/** The pipeline's stream events → the generation's events. Only choice 0 is read: the app asks for one answer. */
export async function* appEvents(head: Pick<StreamHead, 'model'>, stream: ChatStream): AsyncGenerator<InferenceEvent> {
  yield { type: 'model', id: head.model };
  let cited = false;
  for await (const step of stream) {
    for (const ev of step) {
      switch (ev.type) {
        case 'delta':
          if (ev.index !== 0) break;
          if (ev.reasoning) yield { type: 'reasoning', text: ev.reasoning };
          if (ev.content) yield { type: 'content', text: ev.content };
          break;
        case 'citations':
          if (ev.results.length) {
            cited = true;
            yield { type: 'citations', citations: toCitations(ev.results) };
          }
          break;
        case 'usage': {
          // The echo carries the results too: they count even when the request did not ask for them up front.
          const results = ev.params.web_search_citations;
          if (!cited && Array.isArray(results) && results.length) yield { type: 'citations', citations: toCitations(results) };
          const { prompt_tokens: promptTokens, completion_tokens: completionTokens } = ev.usage;
          yield {
            type: 'usage',
            usage: {
              promptTokens,
              completionTokens,
              totalTokens: promptTokens + completionTokens,
              costUsd: fromMicros(ev.cost.usd),
              costDiem: fromMicros(ev.cost.diem),
            },
          };
          break;
        }
        case 'error':
          yield { type: 'error', error: { code: 'INFERENCE_FAILED', status: 500, message: ev.message } };
          break;
        case 'tool_calls':
          if (ev.index !== 0) break;
          for (const c of ev.calls) {
            yield {
              type: 'tool_call',
              index: c.index ?? 0,
              ...(c.id ? { id: c.id } : {}),
              ...(c.function?.name ? { name: c.function.name } : {}),
              ...(c.function?.arguments ? { arguments: c.function.arguments } : {}),
            };
          }
          break;
        // finish: the app's answers do not carry it
      }
    }
  }
}

export function localClient(svc: Service): InferenceClient {
  const deps = svc.chatDeps;
  return {
    mode: 'local',
    wire: svc.config.wire,

    checkSettings(settings) {
      if (settings.webSearch === 'on' && !svc.searchAvailable) {
        throw new ApiError('INVALID_REQUEST', 'Web search is not configured on this server: set the chat’s web search to off or auto', {
          param: 'settings.webSearch',
        });
      }
    },

    async start(user, body, { signal, requestId }) {
      try {
        const principal = await principalForUser(svc.store, user);
        const result = await runChat(deps, { principal, requestId, signal, responseHeaders: {} }, body);
        if (result.kind !== 'stream') throw new ApiError('INFERENCE_FAILED', 'The pipeline answered without streaming');
        return { requestId, events: appEvents(result.head, result.events) };
      } catch (e) {
        throw new InferenceError(appErrorOf(e));
      }
    },

    async usageOf(run: InferenceRun): Promise<AppUsage | null> {
      if (!run.requestId) return null;
      // The pipeline settles after its stream ends, in the background; give the ledger a moment to commit.
      await Promise.race([svc.ledger.drain(), new Promise((r) => setTimeout(r, 2000))]);
      const row = await svc.store.get<{ prompt_tokens: number | string; completion_tokens: number | string; usd: number | string; diem: number | string }>(
        'SELECT prompt_tokens, completion_tokens, usd, diem FROM usage WHERE request_id = $1',
        [run.requestId],
      );
      if (!row) return null;
      const promptTokens = Number(row.prompt_tokens);
      const completionTokens = Number(row.completion_tokens);
      return {
        promptTokens,
        completionTokens,
        totalTokens: promptTokens + completionTokens,
        costUsd: fromMicros(Number(row.usd)),
        costDiem: fromMicros(Number(row.diem)),
      };
    },
  };
}
