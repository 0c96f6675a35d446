// A Responses request → the chat request the pipeline runs: instructions and input items become chat messages
// (a function call joins the assistant message before it; its output becomes a tool message), tools of either
// nesting become chat function tools, and the Responses names of the sampling, reasoning and format fields map onto
// chat's. The chat schema then checks the result, so both endpoints enforce one set of rules.
import { ApiError } from '../api/errors.ts';
import type { ChatMessage } from '../chat/schema.ts';
import type { ContentPart, InputItem, ResponsesRequest } from './schema.ts';

type ChatBody = Record<string, unknown>;
type UserPart = Record<string, unknown>;

function imageUrlOf(p: Extract<ContentPart, { type: 'input_image' | 'image_url' }>, at: string): { url: string; detail?: string } {
  const src = p.image_url;
  if (!src) throw new ApiError('INVALID_REQUEST', `${at}: input_image needs image_url (file_id is not supported: this API stores no files)`, { param: at });
  const url = typeof src === 'string' ? src : src.url;
  const detail = (typeof src === 'string' ? undefined : src.detail) ?? ('detail' in p && p.detail !== 'original' ? (p.detail ?? undefined) : undefined);
  return detail ? { url, detail } : { url };
}

/** A user message's parts in the chat form (text, image_url, file, input_audio). */
function userParts(parts: ContentPart[], at: string): UserPart[] {
  return parts.map((p, i): UserPart => {
    const where = `${at}.content.${i}`;
    switch (p.type) {
      case 'input_text':
      case 'text':
        return { type: 'text', text: p.text };
      case 'output_text':
        return { type: 'text', text: p.text || ' ' };
      case 'refusal':
        return { type: 'text', text: p.refusal || ' ' };
      case 'input_image':
      case 'image_url':
        return { type: 'image_url', image_url: imageUrlOf(p, where) };
      case 'input_file': {
        const data = p.file_data ?? p.file_url;
        if (!data) throw new ApiError('INVALID_REQUEST', `${where}: input_file needs file_data or file_url (file_id is not supported)`, { param: where });
        return { type: 'file', file: { file_data: data, ...(p.filename ? { filename: p.filename } : {}) } };
      }
      case 'input_audio':
        return { type: 'input_audio', input_audio: p.input_audio };
    }
  });
}

/** The text of a system, developer or assistant message: text parts only. */
function textOf(content: string | ContentPart[], at: string): string {
  if (typeof content === 'string') return content;
  return content
    .map((p, i) => {
      if (p.type === 'input_text' || p.type === 'text' || p.type === 'output_text') return p.text;
      if (p.type === 'refusal') return p.refusal;
      throw new ApiError('INVALID_REQUEST', `${at}.content.${i}: only user messages may carry ${p.type} parts`, { param: `${at}.content.${i}` });
    })
    .join('');
}

/** A tool's output as the tool message's text: strings as they are, text parts joined, anything else as JSON. */
function outputText(output: unknown): string {
  if (typeof output === 'string') return output;
  if (Array.isArray(output) && output.every((p) => p && typeof p === 'object' && typeof p.text === 'string')) return output.map((p) => p.text).join('');
  return JSON.stringify(output ?? null);
}

function toMessages(req: ResponsesRequest): ChatMessage[] {
  const out: Record<string, unknown>[] = [];
  if (req.instructions) out.push({ role: 'system', content: req.instructions });
  const items: InputItem[] = typeof req.input === 'string' ? [{ type: 'message', role: 'user', content: req.input }] : req.input;
  for (const [i, item] of items.entries()) {
    const at = `input.${i}`;
    switch (item.type) {
      case 'message':
        if (item.role === 'user') out.push({ role: 'user', content: typeof item.content === 'string' ? item.content : userParts(item.content, at) });
        else out.push({ role: item.role, content: textOf(item.content, at) });
        break;
      case 'function_call': {
        const call = { id: item.call_id, type: 'function', function: { name: item.name, arguments: item.arguments } };
        // Parallel calls, and a call after the assistant's text, are one assistant turn.
        const last = out.at(-1);
        if (last?.role === 'assistant') last.tool_calls = [...((last.tool_calls as unknown[] | undefined) ?? []), call];
        else out.push({ role: 'assistant', content: null, tool_calls: [call] });
        break;
      }
      case 'function_call_output':
        out.push({ role: 'tool', tool_call_id: item.call_id, content: outputText(item.output) });
        break;
      default:
        // Reasoning, references to stored items and hosted tools' history: nothing a stateless model can use.
        break;
    }
  }
  if (!out.length)
    throw new ApiError('INVALID_REQUEST', 'input has no message for the model (this API is stateless: item references are not resolved)', { param: 'input' });
  return out as ChatMessage[];
}

function toChatTools(req: ResponsesRequest): { type: string; function?: Record<string, unknown> }[] {
  const tools: { type: string; function?: Record<string, unknown> }[] = [];
  for (const t of req.tools ?? []) {
    if (t.type === 'function') {
      const f = 'function' in t ? t.function : t;
      const fn = { name: f.name, description: f.description, parameters: f.parameters, strict: f.strict };
      tools.push({ type: 'function', function: Object.fromEntries(Object.entries(fn).filter(([, v]) => v != null)) });
    } else if (t.type === 'web_search' || t.type === 'x_search') tools.push({ type: t.type });
  }
  return tools;
}

function responseFormat(req: ResponsesRequest): unknown {
  const f = req.text?.format;
  if (!f || f.type === 'text') return undefined;
  if (f.type === 'json_object') return { type: 'json_object' };
  const schema = { name: f.name, schema: f.schema, description: f.description ?? undefined, strict: f.strict ?? undefined };
  return { type: 'json_schema', json_schema: schema };
}

/**
 * The chat body (internal names) for a Responses request. A stateless server cannot continue a stored response or
 * conversation, nor run one in the background: those are 400s that say so.
 */
export function responsesToChat(req: ResponsesRequest): ChatBody {
  if (req.previous_response_id) {
    throw new ApiError('INVALID_REQUEST', 'previous_response_id is not supported: this Responses API is stateless; send the conversation in input', {
      param: 'previous_response_id',
    });
  }
  if (req.conversation != null)
    throw new ApiError('INVALID_REQUEST', 'conversation is not supported: this Responses API is stateless', { param: 'conversation' });
  if (req.background)
    throw new ApiError('INVALID_REQUEST', 'background mode is not supported: this Responses API stores no responses', { param: 'background' });
  const params = { ...req.service_parameters };
  if (req.web_search != null && params.enable_web_search === undefined) params.enable_web_search = req.web_search ? 'on' : 'off';
  // The search-documents tool call would reach Responses clients as a call to a function they never offered.
  params.return_search_results_as_documents = false;
  const body: ChatBody = {
    model: req.model,
    messages: toMessages(req),
    stream: req.stream ?? false,
    service_parameters: params,
  };
  const set = (k: string, v: unknown) => {
    if (v !== undefined && v !== null) body[k] = v;
  };
  const tools = toChatTools(req);
  if (tools.length) set('tools', tools);
  // A choice among hosted tools that are not offered here means nothing to the model.
  if (tools.some((t) => t.type === 'function')) {
    set('tool_choice', req.tool_choice);
    set('parallel_tool_calls', req.parallel_tool_calls);
  }
  set('max_completion_tokens', req.max_output_tokens);
  set('temperature', req.temperature);
  set('top_p', req.top_p);
  set('reasoning_effort', req.reasoning?.effort);
  if (req.reasoning?.enabled === false) body.reasoning = { enabled: false };
  set('response_format', responseFormat(req));
  set('verbosity', req.text?.verbosity);
  set('metadata', req.metadata);
  set('fallbacks', req.fallbacks);
  set('user', req.user ?? req.safety_identifier);
  set('prompt_cache_key', req.prompt_cache_key);
  return body;
}
