// A chat's knowledge collections (its `knowledge` setting) → the passages that may answer the turn: a system block
// for the prompt and the citations the answer carries, numbered alike. The question is the user message being
// answered (its text and any audio's transcript). A search that fails costs the answer nothing: it goes on without.
import type { ChatSettings, Message } from '../../conversations/conversations.ts';
import { knowledgeBlock, knowledgeCitations } from '../../knowledge/prompt.ts';
import type { KnowledgeService } from '../../knowledge/service.ts';
import { log } from '../../log.ts';
import type { AppCitation } from '../../wire.ts';
import { storedAttachment } from './attachments.ts';

/** Passages given to the model per turn. */
export const KNOWLEDGE_PASSAGES = 5;

export async function knowledgeContext(
  knowledge: KnowledgeService,
  userId: string,
  settings: ChatSettings,
  history: Message[],
  signal: AbortSignal,
): Promise<{ block: string; citations: AppCitation[] }> {
  const none = { block: '', citations: [] };
  const collections = settings.knowledge ?? [];
  const question = history.at(-1);
  if (!collections.length || question?.role !== 'user') return none;
  const heard = question.attachments
    .map(storedAttachment)
    .map((a) => a?.transcript ?? '')
    .join(' ');
  const query = `${question.content} ${heard}`.trim();
  if (!query) return none;
  try {
    const { hits } = await knowledge.search(userId, collections, query, { limit: KNOWLEDGE_PASSAGES, signal });
    return { block: knowledgeBlock(hits, { citations: settings.citations ?? true }), citations: knowledgeCitations(hits) };
  } catch (e) {
    log.error({ err: e }, 'knowledge: retrieval for a chat turn failed; answering without it');
    return none;
  }
}
