// A message row left 'streaming' by a generation whose process is gone: how it is recognised and how it is closed.
// Every reader of a streaming row (the chat's answer stream, an image turn) applies the same rule.
import type { ConversationOps, Message, MessageError } from './conversations.ts';

/** A 'streaming' row untouched for this long belongs to a generation whose process is gone. */
export const STALE_MS = 30_000;

export const INTERRUPTED: MessageError = {
  code: 'GENERATION_INTERRUPTED',
  status: 500,
  message: 'The server stopped while this answer was being written. Regenerate it to try again.',
};

/** Whether a 'streaming' row's generation is gone: untouched for too long, or (sole writer) older than this process's start. */
export function isStale(m: Message, now: number, aliveSince: number): boolean {
  const touched = m.updatedAt ?? m.createdAt;
  return now - touched > STALE_MS || touched < aliveSince;
}

/** Marks a dead generation's row interrupted (unless it finished meanwhile) and returns the row as it now stands. */
export async function interrupt(ops: ConversationOps, m: Message): Promise<Message> {
  return (await ops.updateMessage(m.id, { status: 'error', error: INTERRUPTED }, { ifStatus: 'streaming' })) ?? ops.message(m.id);
}
