// POST /responses request schema (OpenAI's Responses API, stateless, as the public API serves it). Fields the public
// API or OpenAI documents are accepted; others pass unvalidated and are dropped, as on chat. Input items the model
// cannot use (reasoning, references to stored items, hosted tools' calls) are accepted and left out of the prompt.
import { z } from 'zod';
import { fallbacksSchema, refuseOtherWordParams, serviceParamsSchema, toolChoice } from '../chat/schema.ts';

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

const imageUrl = z.union([z.string().min(1), z.object({ url: z.string().min(1), detail: z.enum(['auto', 'low', 'high']).optional() })]);
const detail = z.enum(['auto', 'low', 'high', 'original']).nullish();

const inputText = z.object({ type: z.literal('input_text'), text: z.string().min(1) });
const chatText = z.object({ type: z.literal('text'), text: z.string().min(1) });
const outputText = z.object({ type: z.literal('output_text'), text: z.string() });
const refusal = z.object({ type: z.literal('refusal'), refusal: z.string() });
const inputImage = z.object({ type: z.literal('input_image'), image_url: imageUrl.nullish(), file_id: z.string().nullish(), detail });
const chatImage = z.object({ type: z.literal('image_url'), image_url: imageUrl });
const inputFile = z.object({
  type: z.literal('input_file'),
  file_data: z.string().min(1).nullish(),
  file_url: z.string().min(1).nullish(),
  file_id: z.string().nullish(),
  filename: z.string().max(512).nullish(),
});
const inputAudio = z.object({
  type: z.literal('input_audio'),
  input_audio: z.object({ data: z.string().min(1), format: z.enum(['wav', 'mp3', 'aiff', 'aac', 'ogg', 'flac', 'm4a', 'pcm16', 'pcm24']).default('wav') }),
});

export const contentPart = z.discriminatedUnion('type', [inputText, chatText, outputText, refusal, inputImage, chatImage, inputFile, inputAudio]);
export type ContentPart = z.infer<typeof contentPart>;

const messageItem = z.object({
  type: z.literal('message'),
  role: z.enum(['user', 'assistant', 'system', 'developer']),
  content: z.union([z.string(), z.array(contentPart)]),
});
const functionCallItem = z.object({
  type: z.literal('function_call'),
  call_id: z.string().min(1),
  name: z.string().min(1),
  arguments: z.string(),
});
const functionCallOutputItem = z.object({ type: z.literal('function_call_output'), call_id: z.string().min(1), output: z.unknown() });

/** Items of a conversation's history that carry nothing a stateless chat model reads (the answer uses what follows). */
export const IGNORED_ITEMS = [
  'reasoning',
  'item_reference',
  'web_search_call',
  'file_search_call',
  'code_interpreter_call',
  'image_generation_call',
  'computer_call',
  'computer_call_output',
  'local_shell_call',
  'local_shell_call_output',
  'shell_call',
  'shell_call_output',
  'apply_patch_call',
  'apply_patch_call_output',
  'mcp_list_tools',
  'mcp_approval_request',
  'mcp_approval_response',
  'mcp_call',
  'custom_tool_call',
  'custom_tool_call_output',
  'tool_search_call',
  'tool_search_output',
  'program',
  'program_output',
  'compaction',
] as const;
const ignoredItem = z.object({ type: z.enum(IGNORED_ITEMS) });

// A message may leave out `type` (the "flexible" form the public API documents).
const withMessageType = (v: unknown) => (isRecord(v) && v.type === undefined && 'role' in v ? { ...v, type: 'message' } : v);

export const inputItem = z.preprocess(withMessageType, z.discriminatedUnion('type', [messageItem, functionCallItem, functionCallOutputItem, ignoredItem]));
export type InputItem = z.infer<typeof inputItem>;

const functionDef = {
  name: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'Function names are 1-64 letters, digits, _ or -'),
  description: z.string().nullish(),
  parameters: z.record(z.string(), z.unknown()).nullish(),
  strict: z.boolean().nullish(),
};

/**
 * A tool: a function in the Responses nesting (`{type, name, parameters}`) or the chat nesting (`{type, function}`),
 * the service's searches (`web_search*`, `x_search`), or a hosted tool of another kind, accepted and not offered.
 */
const tool = z.union([
  z.object({ type: z.literal('function'), function: z.object(functionDef) }),
  z.object({ type: z.literal('function'), ...functionDef }),
  z.object({ type: z.string().regex(/^web_search/) }).transform(() => ({ type: 'web_search' as const })),
  z.object({ type: z.literal('x_search') }),
  z.object({ type: z.string().refine((t) => t !== 'function', 'Function tools need a name') }).transform((t) => ({ type: 'other' as const, kind: t.type })),
]);

/**
 * `auto` / `none` / `required` or a function (either nesting); a hosted tool's choice (`{type: "web_search_preview"}`,
 * `allowed_tools`) cannot force that tool here and leaves the choice to the model.
 */
const responsesToolChoice = z.union([
  toolChoice,
  z.object({ type: z.literal('allowed_tools'), mode: z.enum(['auto', 'required']) }).transform((c) => c.mode),
  z.object({ type: z.string().refine((t) => t !== 'function', 'Function tool choices need a name') }).transform(() => 'auto' as const),
]);
export type ResponsesTool = z.infer<typeof tool>;

const textFormat = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text') }),
  z.object({ type: z.literal('json_object') }),
  z.object({
    type: z.literal('json_schema'),
    name: z.string().min(1).max(64),
    schema: z.record(z.string(), z.unknown()),
    description: z.string().nullish(),
    strict: z.boolean().nullish(),
  }),
]);

const responsesFields = z.object({
  model: z.string().min(1),
  input: z.union([z.string(), z.array(inputItem).min(1)]),
  instructions: z.string().nullish(),
  tools: z.array(tool).nullish(),
  tool_choice: responsesToolChoice.nullish(),
  parallel_tool_calls: z.boolean().nullish(),
  reasoning: z
    .object({
      effort: z.enum(['none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max']).nullish(),
      summary: z.enum(['auto', 'concise', 'detailed']).nullish(),
      enabled: z.boolean().nullish(),
    })
    .nullish(),
  max_output_tokens: z.number().int().min(1).nullish(),
  temperature: z.number().min(0).max(2).nullish(),
  top_p: z.number().min(0).max(1).nullish(),
  text: z.object({ format: textFormat.nullish(), verbosity: z.enum(['low', 'medium', 'high', 'auto']).nullish() }).nullish(),
  stream: z.boolean().nullish(),
  /** Search the web for this request (`true`: on, `false`: off); the service parameters' own setting wins. */
  web_search: z.boolean().nullish(),
  service_parameters: serviceParamsSchema.optional(),
  metadata: z.record(z.string(), z.string()).nullish(),
  include: z.array(z.string()).nullish(),
  fallbacks: fallbacksSchema.nullish(),
  store: z.boolean().nullish(),
  user: z.string().max(256).nullish(),
  safety_identifier: z.string().max(256).nullish(),
  prompt_cache_key: z.string().max(1024).nullish(),
  truncation: z.enum(['auto', 'disabled']).nullish(),
  // Stateless: a stored response or conversation cannot be continued (refused with a 400 that says so).
  previous_response_id: z.string().nullish(),
  conversation: z.unknown().optional(),
  background: z.boolean().nullish(),
});

export const responsesRequestSchema = z.preprocess(refuseOtherWordParams, responsesFields);

export type ResponsesRequest = z.infer<typeof responsesFields>;
