// Caller messages → engine messages: system prompts assembled (operator defaults, character, caller), file parts
// turned into text (audio, for models that do not hear, into its transcript), capability gates applied, text-only
// part arrays flattened for chat templates.
import { ApiError } from '../api/errors.ts';
import type { ChatMessage, UserPart } from './schema.ts';
import type { Character } from '../characters/characters.ts';
import { personaPrompt } from '../characters/snapshot.ts';
import { parseDataUrl } from '../files/data-url.ts';
import { fileToText, formatFileForPrompt } from '../files/to-text.ts';
import type { ModelEntry } from '../models/schema.ts';
import { safeFetch } from '../net/safe-fetch.ts';
import type { EngineMessage } from '../engines/text/types.ts';

/** Per-message caps on non-text parts, as the public API sets them. */
const PART_CAPS = { image_url: 10, input_audio: 5, video_url: 3, file: 5 } as const;

const GATES: Record<string, { capability: keyof ModelEntry['capabilities']; what: string }> = {
  image_url: { capability: 'vision', what: 'image input (image_url)' },
  input_audio: { capability: 'audio_input', what: 'audio input (input_audio)' },
  video_url: { capability: 'video_input', what: 'video input (video_url)' },
};

const textOf = (content: string | { text: string }[]): string => (typeof content === 'string' ? content : content.map((p) => p.text).join('\n\n'));

async function fileBytes(part: Extract<UserPart, { type: 'file' }>, allowHosts: string[] | undefined): Promise<{ data: Buffer; mimeType?: string }> {
  const src = part.file.file_data;
  if (!src) throw new ApiError('INVALID_REQUEST', 'file parts need file.file_data (a data: URL or an http(s) URL); file_id is not supported');
  if (src.startsWith('data:')) return parseDataUrl(src);
  if (/^https?:\/\//i.test(src)) {
    const r = await safeFetch(src, { allowHosts });
    if (r.status !== 200) throw new ApiError('INVALID_REQUEST', `Could not fetch file ${src}: HTTP ${r.status}`);
    return { data: r.body, mimeType: r.contentType?.split(';')[0] };
  }
  throw new ApiError('INVALID_REQUEST', 'file.file_data must be a data: URL or an http(s) URL');
}

const IMAGE_MAX_BYTES = 25 * 1024 * 1024;

/**
 * An image URL is fetched here, through the safe fetcher, and sent on inline: left as a URL, the engine would fetch
 * it from inside our network, where a private or metadata address must never be reachable by a user.
 */
async function inlineImage(url: string, allowHosts: string[] | undefined): Promise<string> {
  if (!/^https?:\/\//i.test(url)) {
    if (url.startsWith('data:image/')) return url;
    throw new ApiError('INVALID_REQUEST', 'image_url.url must be an http(s) URL or a data:image/... URL');
  }
  const r = await safeFetch(url, { allowHosts, maxBytes: IMAGE_MAX_BYTES, accept: 'image/*' });
  if (r.status !== 200) throw new ApiError('INVALID_REQUEST', `Could not fetch image ${url}: HTTP ${r.status}`);
  const type = r.contentType?.split(';')[0].trim().toLowerCase();
  if (!type?.startsWith('image/')) throw new ApiError('INVALID_REQUEST', `${url} is not an image (content-type ${type ?? 'none'})`);
  return `data:${type};base64,${r.body.toString('base64')}`;
}

/** Transcribes an input_audio part; undefined when no transcription model can run here. */
type Transcribe = (data: Buffer, format: string) => Promise<string | undefined>;

/** An input_audio part as prompt text (a model that does not hear reads what was said), or undefined. */
async function audioAsText(part: Extract<UserPart, { type: 'input_audio' }>, transcribe: Transcribe, at: number): Promise<string | undefined> {
  const src = part.input_audio.data;
  let data: Buffer;
  if (src.startsWith('data:')) data = parseDataUrl(src).data;
  else if (/^[A-Za-z0-9+/\s]+={0,2}\s*$/.test(src)) data = Buffer.from(src, 'base64');
  else throw new ApiError('INVALID_REQUEST', `messages.${at}: input_audio.data must be base64 audio (or a data: URL)`, { param: `messages.${at}.content` });
  const text = await transcribe(data, part.input_audio.format);
  if (text === undefined) return undefined;
  // The transcript is the caller's words: it must not forge the markers around it.
  const body = text.replace(/\[(Audio transcript|End of audio transcript)/g, '($1').trim() || '(no speech was recognised in this audio)';
  return `[Audio transcript (${part.input_audio.format})]\n${body}\n[End of audio transcript]`;
}

async function userContent(
  model: ModelEntry,
  content: string | UserPart[],
  at: number,
  allowHosts: string[] | undefined,
  transcribe: Transcribe | undefined,
): Promise<EngineMessage['content']> {
  if (typeof content === 'string') return content;
  const counts: Record<string, number> = {};
  const parts: Record<string, unknown>[] = [];
  for (const part of content) {
    counts[part.type] = (counts[part.type] ?? 0) + 1;
    const cap = PART_CAPS[part.type as keyof typeof PART_CAPS];
    if (cap !== undefined && counts[part.type] > cap) {
      throw new ApiError('INVALID_REQUEST', `messages.${at}: at most ${cap} ${part.type} parts per message`);
    }
    // Audio for a model that does not hear is written down, as a file's text is extracted.
    if (part.type === 'input_audio' && !model.capabilities.audio_input && transcribe) {
      const text = await audioAsText(part, transcribe, at);
      if (text !== undefined) {
        parts.push({ type: 'text', text });
        continue;
      }
    }
    const gate = GATES[part.type];
    if (gate && !model.capabilities[gate.capability]) {
      throw new ApiError('UNSUPPORTED_CONTENT', `Model ${model.id} does not support ${gate.what}`, { param: `messages.${at}.content` });
    }
    if (part.type === 'text') parts.push({ type: 'text', text: part.text });
    else if (part.type === 'file') {
      const { data, mimeType } = await fileBytes(part, allowHosts);
      const { kind, text } = await fileToText({ data, filename: part.file.filename, mimeType });
      parts.push({ type: 'text', text: formatFileForPrompt(part.file.filename, kind, text) });
    } else if (part.type === 'image_url') {
      parts.push({ type: 'image_url', image_url: { ...part.image_url, url: await inlineImage(part.image_url.url, allowHosts) } });
    } else {
      const { cache_control: _c, ...rest } = part;
      parts.push(rest);
    }
  }
  // Text-only content goes as one string: every chat template accepts that, not every one accepts part arrays.
  return parts.every((p) => p.type === 'text') ? parts.map((p) => p.text as string).join('\n\n') : parts;
}

/** A character's instructions with its example dialogue ({{char}} its name; an API caller is just "User"). */
const characterPrompt = (c: Character) => personaPrompt({ name: c.name, instructions: c.systemPrompt, exampleDialogue: c.exampleDialogue }, 'User');

export interface MessageInputs {
  model: ModelEntry;
  messages: ChatMessage[];
  operatorPrompts: string[];
  includeOperatorPrompts: boolean;
  character?: Character;
  /** Private hosts that file and image URLs may still be fetched from (Config.fetchAllowHosts). */
  allowHosts?: string[];
  /** Writes down input_audio for a model without audio input (absent: such parts are refused). */
  transcribeAudio?: Transcribe;
}

export async function toEngineMessages(input: MessageInputs): Promise<EngineMessage[]> {
  const { messages } = input;
  let lead = 0;
  while (lead < messages.length && (messages[lead].role === 'system' || messages[lead].role === 'developer')) lead++;
  const system = [
    ...(input.includeOperatorPrompts ? input.operatorPrompts : []),
    ...(input.character ? [characterPrompt(input.character)] : []),
    ...messages.slice(0, lead).map((m) => textOf(m.content as string | { text: string }[])),
  ].filter((s) => s.trim());
  const out: EngineMessage[] = system.length ? [{ role: 'system', content: system.join('\n\n') }] : [];
  for (let i = lead; i < messages.length; i++) {
    const m = messages[i];
    switch (m.role) {
      case 'system':
      case 'developer':
        out.push({ role: 'system', content: textOf(m.content) });
        break;
      case 'user':
        out.push({
          role: 'user',
          content: await userContent(input.model, m.content, i, input.allowHosts, input.transcribeAudio),
          ...(m.name ? { name: m.name } : {}),
        });
        break;
      case 'assistant': {
        const msg: EngineMessage = { role: 'assistant', content: m.content == null ? null : textOf(m.content) };
        if (m.tool_calls?.length) msg.tool_calls = m.tool_calls;
        if (m.reasoning_details) msg.reasoning_details = m.reasoning_details;
        if (m.thought_signature) msg.thought_signature = m.thought_signature;
        out.push(msg);
        break;
      }
      case 'tool':
        out.push({ role: 'tool', content: textOf(m.content), tool_call_id: m.tool_call_id });
        break;
    }
  }
  return out;
}
