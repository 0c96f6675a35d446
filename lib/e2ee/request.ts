// What an E2EE chat request may be, read the same way by the gateway (which sees the structure, never the text) and
// by the worker (which opens the text): text messages only, streamed, no tools, no files, no web search, no
// character, no injected system prompt. The gateway has validated the body against the full chat schema first; these
// are the E2EE rules on top, in the public API's words.
import { z } from 'zod';
import { ApiError } from '../api/errors.ts';
import type { ModelEntry } from '../models/schema.ts';
import { completionCap } from '../models/schema.ts';
import type { EngineParams } from '../engines/text/types.ts';

const message = z.looseObject({
  role: z.enum(['system', 'developer', 'user', 'assistant', 'tool']),
  content: z.unknown(),
  tool_call_id: z.string().optional(),
});

const request = z.looseObject({
  model: z.string(),
  messages: z.array(message).min(1),
  stream: z.boolean().optional(),
  stream_options: z.looseObject({ include_usage: z.boolean().optional() }).nullish(),
  max_tokens: z.number().int().nullish(),
  max_completion_tokens: z.number().int().nullish(),
  temperature: z.number().nullish(),
  top_p: z.number().nullish(),
  stop: z.union([z.string(), z.array(z.string())]).nullish(),
  seed: z.number().int().nullish(),
  frequency_penalty: z.number().nullish(),
  presence_penalty: z.number().nullish(),
  tools: z.array(z.unknown()).nullish(),
  functions: z.array(z.unknown()).nullish(),
  n: z.number().int().nullish(),
});

export type E2eeRequest = z.infer<typeof request>;
export type E2eeMessage = E2eeRequest['messages'][number];

/** The roles whose text a client must seal; others (assistant, tool) may come sealed or plain. */
export const MUST_SEAL = new Set(['system', 'developer', 'user']);

const refuse = (message: string, param?: string) => new ApiError('INVALID_REQUEST', message, param ? { param } : undefined);

/**
 * The E2EE request in `body`, or a 400 saying which rule it breaks. `params`: the service parameters as the gateway
 * read them (web search, characters, system prompt), absent in the worker.
 */
export function readE2eeRequest(body: unknown, params?: { webSearch?: string; characterSlug?: unknown; systemPrompt?: boolean }): E2eeRequest {
  const r = request.safeParse(body);
  if (!r.success) throw refuse(`E2EE request is not a chat request: ${r.error.issues[0]?.message ?? 'invalid'}`);
  const req = r.data;
  if (req.stream !== true) throw refuse('E2EE requires streaming: set stream to true', 'stream');
  if (req.tools?.length || req.functions?.length) throw refuse('E2EE does not support function calling: the tools would see the text', 'tools');
  if ((req.n ?? 1) !== 1) throw refuse('E2EE answers one choice: n must be 1', 'n');
  for (const [i, m] of req.messages.entries()) {
    if (typeof m.content !== 'string') {
      throw refuse('E2EE messages carry encrypted text only: files, images and audio cannot be sent encrypted', `messages.${i}.content`);
    }
  }
  if (params?.webSearch && params.webSearch !== 'off') throw refuse('E2EE does not support web search: the search would see the text', 'enable_web_search');
  if (params?.characterSlug) throw refuse('E2EE does not support characters: their prompt would be added in plain text', 'character_slug');
  if (params?.systemPrompt) throw refuse("E2EE does not support the service's system prompt: it would be added in plain text", 'include_service_system_prompt');
  return req;
}

/** The sampling options the engine gets; max_tokens is the most the gateway holds credit for. */
export function e2eeEngineParams(req: E2eeRequest, model: ModelEntry): EngineParams {
  const cap = completionCap(model);
  const asked = req.max_completion_tokens ?? (req.max_tokens && req.max_tokens > 0 ? req.max_tokens : undefined);
  if (asked !== undefined && (asked < 1 || asked > cap))
    throw refuse(`max_completion_tokens must be between 1 and this model's maximum of ${cap}`, 'max_completion_tokens');
  return {
    max_tokens: asked ?? cap,
    n: 1,
    temperature: req.temperature ?? model.constraints.temperature,
    top_p: req.top_p ?? model.constraints.top_p,
    stop: req.stop == null ? undefined : typeof req.stop === 'string' ? [req.stop] : req.stop,
    seed: req.seed ?? undefined,
    frequency_penalty: req.frequency_penalty ?? undefined,
    presence_penalty: req.presence_penalty ?? undefined,
  };
}

/** The sealed text's size in bytes (each envelope is hex of key ‖ nonce ‖ text ‖ tag): an upper bound on its tokens. */
export function sealedTextBytes(req: E2eeRequest): number {
  let bytes = 0;
  for (const m of req.messages) if (typeof m.content === 'string') bytes += Math.max(0, m.content.length / 2 - 93);
  return Math.ceil(bytes);
}
