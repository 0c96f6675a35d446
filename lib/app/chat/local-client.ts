// Inference in this process: the same pipeline as POST /api/v1/chat/completions (validation, rate limits, credit
// hold, engine, billing), called for the user through the principal of their server-held key; no secret involved.
import { randomBytes } from 'node:crypto';
import { ApiError } from '../../api/errors.ts';
import { fromMicros } from '../../billing/money.ts';
import { runChat } from '../../inference/chat/pipeline.ts';
import type { Service } from '../../service.ts';
import { principalForUser } from '../../users/users.ts';
import type { AppUsage } from '../wire.ts';
import { appErrorOf, type InferenceClient, InferenceError, type InferenceRun, parseStream } from './inference.ts';

// Request ids in the API layer's shape (24 hex characters, time first so usage rows append to their index).
const newRequestId = () => Date.now().toString(16).padStart(11, '0') + randomBytes(7).toString('hex').slice(0, 13);

export function localClient(svc: Service): InferenceClient {
  const deps = svc.chatDeps;
  return {
    mode: 'local',
    wire: svc.config.wire,

    checkSettings(settings) {
      if (settings.webSearch === 'on' && !svc.searchAvailable) {
        throw new ApiError('INVALID_REQUEST', 'Web search is not configured on this server: set the chat’s web search to off or auto', { param: 'settings.webSearch' });
      }
    },

    async start(user, body, signal) {
      const requestId = newRequestId();
      try {
        const principal = await principalForUser(svc.store, user);
        const result = await runChat(deps, { principal, requestId, signal, responseHeaders: {} }, body);
        if (result.kind !== 'stream') throw new ApiError('INFERENCE_FAILED', 'The pipeline answered without streaming');
        return { requestId, events: parseStream(result.events, svc.config.wire) };
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
      return { promptTokens, completionTokens, totalTokens: promptTokens + completionTokens, costUsd: fromMicros(Number(row.usd)), costDiem: fromMicros(Number(row.diem)) };
    },
  };
}
