// Temporary chats (issue 32): the browser holds the chat and sends its branch with each turn; the answer runs through
// the same generation as any chat (metered and billed as usual, streamed, stoppable), but its messages live only in
// this process's memory: no conversation row, nothing in the history, search or memories. A finished answer is kept
// here a short while, so a stream that attaches after the end (a fast answer) still receives it, then forgotten.
import type { ConversationOps, Message, UpdateMessageOptions, UpdateMessagePatch } from '../../conversations/conversations.ts';
import { ApiError } from '../../api/errors.ts';

/** What a generation reads and writes of its answer: a stored chat's operations, or a temporary answer in memory. */
export type AnswerStore = Pick<ConversationOps, 'message' | 'updateMessage'>;

/** How long a finished temporary answer can still be streamed or stopped. */
const KEEP_MS = 5 * 60_000;

export class TemporaryAnswers {
  private readonly ended = new Map<string, { userId: string; message: Message; at: number }>();

  /** The in-memory store of one answer being written. */
  store(userId: string, initial: Message): AnswerStore {
    let current = { ...initial };
    const updateMessage = async (id: string, patch: UpdateMessagePatch, opts?: UpdateMessageOptions): Promise<Message | undefined> => {
      if (id !== current.id) throw new ApiError('NOT_FOUND', 'Message not found');
      if (opts?.ifStatus && current.status !== opts.ifStatus) return undefined;
      const defined = Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined)) as Partial<Message>;
      current = { ...current, ...defined, updatedAt: Date.now() };
      if (current.status !== 'streaming') this.keep(userId, current);
      return { ...current };
    };
    return {
      message: async (id) => {
        if (id !== current.id) throw new ApiError('NOT_FOUND', 'Message not found');
        return { ...current };
      },
      updateMessage: updateMessage as AnswerStore['updateMessage'],
    };
  }

  /** A finished temporary answer of this user's, while it is kept. */
  finished(id: string, userId: string): Message | undefined {
    const e = this.ended.get(id);
    return e && e.userId === userId && Date.now() - e.at < KEEP_MS ? e.message : undefined;
  }

  private keep(userId: string, message: Message): void {
    const now = Date.now();
    for (const [id, e] of this.ended) if (now - e.at >= KEEP_MS) this.ended.delete(id);
    this.ended.set(message.id, { userId, message, at: now });
  }
}

/** A message of a temporary chat, made in memory in the stored shape the prompt builder reads. */
export function memoryMessage(chatId: string, m: Pick<Message, 'id' | 'parentId' | 'role' | 'content'> & Partial<Message>): Message {
  const at = Date.now();
  return {
    conversationId: chatId,
    reasoning: null,
    attachments: [],
    citations: [],
    modelId: null,
    status: 'complete',
    usage: null,
    error: null,
    memories: [],
    createdAt: at,
    updatedAt: at,
    ...m,
  };
}
