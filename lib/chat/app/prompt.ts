// One branch of a conversation → the OpenAI-compatible chat request the inference backend receives: the chat's
// system prompt, the branch's messages with their attachments as content parts, sampling and the service parameters
// (web search, citations, the operator's system prompt, the character), streamed with usage.
import type { WireNames } from '../../api/wire.ts';
import { type CharacterSnapshot, personaPrompt } from '../../characters/snapshot.ts';
import type { ChatSettings, Conversation, Message } from '../../conversations/conversations.ts';
import { memoryPrompt } from '../../memory/prompt.ts';
import { storedAttachment } from './attachments.ts';
import { transcriptForPrompt } from './audio-attachments.ts';

type Part =
  | { type: 'text'; text: string }
  | { type: 'image_url'; image_url: { url: string } }
  | { type: 'file'; file: { filename: string; file_data: string } };

export interface PromptInput {
  model: string;
  /** `character`: the chat's snapshot of its character, which then speaks from it instead of by character_slug. */
  conversation: Pick<Conversation, 'characterSlug'> & { settings: ChatSettings; character?: CharacterSnapshot | null; userName?: string };
  /** The branch from the root to the message being answered (a user message), oldest first. */
  history: Message[];
  /** Wire names of the backend that receives the request (service_parameters or its configured word). */
  wire: WireNames;
  /** The user's memories this turn is given (lib/memory/for-chat.ts), as one system message after the chat's own. */
  memories?: { content: string }[];
  /** Passages from the chat's knowledge collections, numbered as the answer's citations (knowledge.ts). */
  knowledge?: string;
}

function userContent(m: Message): string | Part[] {
  const files = m.attachments.map(storedAttachment).filter((a) => a !== undefined);
  if (!files.length) return m.content;
  const parts: Part[] = [];
  if (m.content) parts.push({ type: 'text', text: m.content });
  for (const f of files) {
    // Images go to the model as images; documents as `file` parts, which the service turns into text.
    if (f.kind === 'image') parts.push({ type: 'image_url', image_url: { url: f.dataUrl } });
    // Audio goes as what was said, written down when it was sent.
    else if (f.kind === 'audio') parts.push({ type: 'text', text: transcriptForPrompt(f.name, f.transcript ?? '') });
    else parts.push({ type: 'file', file: { filename: f.name, file_data: f.dataUrl } });
  }
  return parts;
}

export function chatRequestBody(input: PromptInput): Record<string, unknown> {
  const { settings } = input.conversation;
  const messages: Record<string, unknown>[] = [];
  const character = input.conversation.character;
  if (character) messages.push({ role: 'system', content: personaPrompt(character, input.conversation.userName ?? '') });
  if (settings.systemPrompt?.trim()) messages.push({ role: 'system', content: settings.systemPrompt });
  const remembered = memoryPrompt(input.memories ?? []);
  if (remembered) messages.push({ role: 'system', content: remembered });
  if (input.knowledge) messages.push({ role: 'system', content: input.knowledge });
  for (const m of input.history) {
    if (m.role === 'user') messages.push({ role: 'user', content: userContent(m) });
    else if (m.role === 'system') messages.push({ role: 'system', content: m.content });
    // A failed or empty answer said nothing the model should read back.
    else if (m.content.trim()) messages.push({ role: 'assistant', content: m.content });
  }
  const params: Record<string, unknown> = {
    enable_web_search: settings.webSearch ?? 'off',
    enable_web_citations: settings.citations ?? true,
    include_search_results_in_stream: true,
    [input.wire.includeSystemPrompt]: settings.includeServiceSystemPrompt ?? true,
  };
  if (input.conversation.characterSlug && !character) params.character_slug = input.conversation.characterSlug;
  const temperature = settings.temperature ?? character?.temperature ?? undefined;
  return {
    model: input.model,
    messages,
    stream: true,
    stream_options: { include_usage: true },
    ...(temperature !== undefined ? { temperature } : {}),
    [input.wire.params]: params,
  };
}
