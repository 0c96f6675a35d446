// POST /chat/completions request schema. Every field the public API documents is accepted; top-level fields it
// does not document pass unvalidated and are dropped (the spec: "may be passed through, but they are not validated"),
// as are unknown keys inside the service parameters object.
import { z } from 'zod';

const cacheControl = z.strictObject({ type: z.literal('ephemeral'), ttl: z.string().optional() }).optional();

const textPart = z.object({ type: z.literal('text'), text: z.string().min(1), cache_control: cacheControl });
const imagePart = z.object({
  type: z.literal('image_url'),
  image_url: z.object({ url: z.string().min(1), detail: z.enum(['auto', 'low', 'high']).optional() }),
  cache_control: cacheControl,
});
const audioPart = z.object({
  type: z.literal('input_audio'),
  input_audio: z.object({ data: z.string().min(1), format: z.enum(['wav', 'mp3', 'aiff', 'aac', 'ogg', 'flac', 'm4a', 'pcm16', 'pcm24']).default('wav') }),
  cache_control: cacheControl,
});
const videoPart = z.object({ type: z.literal('video_url'), video_url: z.object({ url: z.string().min(1) }), cache_control: cacheControl });
const filePart = z.object({
  type: z.literal('file'),
  file: z.object({ file_data: z.string().min(1).optional(), file_id: z.string().optional(), filename: z.string().max(512).optional() }),
  cache_control: cacheControl,
});

export const userPart = z.discriminatedUnion('type', [textPart, imagePart, audioPart, videoPart, filePart]);
export type UserPart = z.infer<typeof userPart>;

const textContent = z.union([z.string(), z.array(textPart).min(1)]);

const toolCall = z.object({
  id: z.string(),
  type: z.literal('function'),
  function: z.object({ name: z.string(), arguments: z.string() }),
});

const systemMessage = z.object({ role: z.literal('system'), content: textContent, name: z.string().optional() });
const developerMessage = z.object({ role: z.literal('developer'), content: textContent, name: z.string().optional() });
const userMessage = z.object({
  role: z.literal('user'),
  content: z.union([z.string(), z.array(userPart).min(1)]),
  name: z.string().optional(),
});
const assistantMessage = z
  .object({
    role: z.literal('assistant'),
    content: z.union([textContent, z.null()]).optional(),
    name: z.string().nullish(),
    reasoning_content: z.string().nullish(),
    reasoning_details: z.array(z.object({ type: z.string() }).passthrough()).optional(),
    thought_signature: z.string().nullish(),
    tool_calls: z.array(toolCall).nullish(),
  })
  .refine((m) => (m.content !== undefined && m.content !== null) || (m.tool_calls?.length ?? 0) > 0, {
    message: 'An assistant message needs content or tool_calls',
  });
const toolMessage = z.object({
  role: z.literal('tool'),
  content: textContent,
  tool_call_id: z.string().min(1),
  name: z.string().nullish(),
  reasoning_content: z.string().nullish(),
});

export const message = z.discriminatedUnion('role', [systemMessage, developerMessage, userMessage, assistantMessage, toolMessage]);
export type ChatMessage = z.infer<typeof message>;

const functionTool = z.object({
  type: z.literal('function'),
  id: z.string().optional(),
  function: z.object({
    name: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'Function names are 1-64 letters, digits, _ or -'),
    description: z.string().optional(),
    parameters: z.record(z.string(), z.unknown()).optional(),
    strict: z.boolean().optional(),
  }),
});
export type FunctionTool = z.infer<typeof functionTool>;

/** `{type: "web_search"}` / `{type: "x_search"}` tools: the service's searches (service parameters), not functions. */
const searchTool = z.object({ type: z.enum(['web_search', 'x_search']) });

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The flat `{type: "function", name, parameters}` form (OpenAI Responses) and Anthropic's `{name, input_schema}` are
 * nested into the chat form, as the public API converts them.
 */
function nestTool(v: unknown): unknown {
  if (!isRecord(v) || 'function' in v || typeof v.name !== 'string') return v;
  if (v.type !== 'function' && v.type !== undefined) return v;
  const fn = { name: v.name, description: v.description, parameters: v.parameters ?? v.input_schema, strict: v.strict };
  return { type: 'function', function: Object.fromEntries(Object.entries(fn).filter(([, x]) => x != null)) };
}

export const toolItem = z.preprocess(nestTool, z.discriminatedUnion('type', [functionTool, searchTool]));

/** `{type: "auto"}`-style objects become the strings; `{type: "function", name}` (Responses) is nested. */
function normaliseToolChoice(v: unknown): unknown {
  if (!isRecord(v)) return v;
  if (v.type === 'auto' || v.type === 'none' || v.type === 'required') return v.type;
  if (v.type === 'function' && !('function' in v) && typeof v.name === 'string') return { type: 'function', function: { name: v.name } };
  return v;
}

export const toolChoice = z.preprocess(
  normaliseToolChoice,
  z.union([z.enum(['auto', 'none', 'required']), z.object({ type: z.literal('function'), function: z.object({ name: z.string() }) })]),
);

const responseFormat = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text') }),
  z.object({ type: z.literal('json_object') }),
  z.object({
    type: z.literal('json_schema'),
    json_schema: z.object({
      name: z.string().min(1).max(64),
      description: z.string().optional(),
      strict: z.boolean().nullish(),
      schema: z.record(z.string(), z.unknown()).optional(),
    }),
  }),
]);

const webSearchMode = z.union([z.enum(['auto', 'on', 'off']), z.boolean()]).transform((v) => (v === true ? 'on' : v === false ? 'off' : v));

/**
 * The request's service parameters, under their canonical internal names (`service_parameters`,
 * `include_service_system_prompt`); lib/api/wire-rename.ts maps the configured wire word onto them.
 */
export const serviceParamsSchema = z
  .object({
    character_slug: z.string().min(1).max(200).optional(),
    strip_thinking_response: z.boolean().optional(),
    disable_thinking: z.boolean().optional(),
    enable_web_search: webSearchMode.optional(),
    enable_web_scraping: z.boolean().optional(),
    enable_web_citations: z.boolean().optional(),
    include_search_results_in_stream: z.boolean().optional(),
    return_search_results_as_documents: z.boolean().optional(),
    enable_x_search: z.boolean().optional(),
    enable_e2ee: z.boolean().optional(),
    include_service_system_prompt: z.boolean().optional(),
  })
  .strip();
export type ServiceParamsInput = z.infer<typeof serviceParamsSchema>;

const stop = z.union([z.string(), z.array(z.string()).min(1).max(4), z.null()]);

const verbosity = z.enum(['low', 'medium', 'high', 'auto']);

const modelName = z.string().min(1);
const fallbackModel = z.union([z.object({ model: modelName }), modelName.transform((model) => ({ model }))]);
/** Models tried in order when the first is unavailable or fails before its first byte (at most 10). */
export const fallbacksSchema = z.array(fallbackModel).max(10);

// The request's wire word decides the name of the parameters object; under another word, `service_parameters` is
// renamed `__unknown__service_parameters` (lib/api/wire-rename.ts) and stays a 400: its settings would not apply.
const OTHER_WORD_PARAMS = '__unknown__service_parameters';
export function refuseOtherWordParams(v: unknown, ctx: z.core.$RefinementCtx): unknown {
  if (isRecord(v) && Object.hasOwn(v, OTHER_WORD_PARAMS)) ctx.addIssue({ code: 'unrecognized_keys', keys: [OTHER_WORD_PARAMS], input: v, path: [] });
  return v;
}

const chatRequestFields = z.object({
  model: z.string().min(1),
  messages: z.array(message).min(1),
  stream: z.boolean().optional(),
  stream_options: z.object({ include_usage: z.boolean().optional(), continuous_usage_stats: z.boolean().optional() }).nullish(),
  // OpenAI's documented bound (the public API documents none); every choice is held and billed.
  n: z.number().int().min(1).max(128).optional(),
  temperature: z.number().min(0).max(2).nullish(),
  top_p: z.number().min(0).max(1).nullish(),
  top_k: z.number().int().min(0).optional(),
  min_p: z.number().min(0).max(1).optional(),
  min_temp: z.number().min(0).max(2).optional(),
  max_temp: z.number().min(0).max(2).optional(),
  frequency_penalty: z.number().min(-2).max(2).nullish(),
  presence_penalty: z.number().min(-2).max(2).nullish(),
  repetition_penalty: z.number().min(0).optional(),
  max_tokens: z.number().int().nullish(),
  max_completion_tokens: z.number().int().min(1).nullish(),
  stop: stop.optional(),
  stop_token_ids: z.array(z.number().int()).optional(),
  seed: z.number().int().positive().nullish(),
  logprobs: z.boolean().nullish(),
  // The public API documents no maximum: an engine that caps it (llama.cpp: 20) returns fewer.
  top_logprobs: z.number().int().min(0).nullish(),
  logit_bias: z.record(z.string(), z.number()).nullish(),
  tools: z.array(toolItem).nullish(),
  tool_choice: toolChoice.nullish(),
  parallel_tool_calls: z.boolean().nullish(),
  response_format: responseFormat.nullish(),
  reasoning_effort: z.enum(['none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max']).nullish(),
  reasoning: z.object({ effort: z.string().optional(), summary: z.string().optional(), enabled: z.boolean().optional() }).nullish(),
  prompt_cache_key: z.string().max(1024).nullish(),
  prompt_cache_retention: z.enum(['default', 'extended', '24h']).nullish(),
  verbosity: verbosity.nullish(),
  // Accepted for OpenAI compatibility, not forwarded (as the public API does).
  text: z.object({ verbosity: verbosity.nullish() }).nullish(),
  include: z.array(z.string()).nullish(),
  user: z.string().max(256).nullish(),
  store: z.boolean().nullish(),
  metadata: z.record(z.string(), z.string()).nullish(),
  fallbacks: fallbacksSchema.nullish(),
  service_parameters: serviceParamsSchema.optional(),
});

export const chatRequestSchema = z.preprocess(refuseOtherWordParams, chatRequestFields);

export type ChatRequest = z.infer<typeof chatRequestFields>;
