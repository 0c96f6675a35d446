// A temporary chat's files live only here, in this page's memory: the server keeps nothing of them, so each turn
// sends the branch's files again, as it sends its words. They go with the chat (a reload, leaving, the switch off).
import type { UploadAttachment } from '@/lib/wire.ts';

/** chat id → user message id → the files sent with that message. */
const held = new Map<string, Map<string, UploadAttachment[]>>();

export function keepTemporaryFiles(chatId: string, messageId: string, files: UploadAttachment[]): void {
  if (!files.length) return;
  const chat = held.get(chatId) ?? new Map<string, UploadAttachment[]>();
  chat.set(messageId, files);
  held.set(chatId, chat);
}

export const temporaryFiles = (chatId: string, messageId: string): UploadAttachment[] => held.get(chatId)?.get(messageId) ?? [];

export function dropTemporaryFiles(chatId: string): void {
  held.delete(chatId);
}
