// Images in a chat: a turn is the user's request (a prompt, "Upscale 2×") and an assistant message holding the images
// (lib/conversations/images.ts keeps the references). The chat and the message it follows are checked before any
// work is billed; the messages are written only once the first image exists, so a refused or failed request leaves
// the chat as it was. A generation's further variants run here in the background, one metered call each, into the
// same message: each image is stored and listed on the message as it finishes, and the message stays 'streaming'
// (with a heartbeat) until the last, so the chat's own stop, stream and reload work on it: a stop ends the run at
// once (the call in flight is released, not billed), and a process that dies leaves it to be declared interrupted.
import { ApiError, isApiError, toApiError } from '../api/errors.ts';
import { autoTitle, type Conversation, type ConversationOps, type Message, type MessageError, userConversations } from '../conversations/conversations.ts';
import { imageAttachment, imagesUsage, type StoredImage, type UserImages, userImages } from '../conversations/images.ts';
import { DEFAULT_TITLE } from '../conversations/text.ts';
import type { Store } from '../db/store.ts';
import { interrupt, isStale } from '../conversations/stale.ts';
import { log } from '../log.ts';

/** How often a running generation marks its message alive and looks for a stop. */
export const HEARTBEAT_MS = 1_000;

export interface TurnPlace {
  ops: ConversationOps;
  conversation: Conversation;
  parentId: string | null;
  isFirst: boolean;
}

/** The user's chat and the message a turn follows (its branch's last, or null to start over): 404 unless the user's. */
export async function openTurn(store: Store, userId: string, conversationId: string, parentId: string | null, aliveSince: number): Promise<TurnPlace> {
  const ops = userConversations(store, userId);
  const c = await ops.withPath(conversationId, parentId ?? undefined);
  const parent = parentId === null ? undefined : c.messages.at(-1);
  if (parent?.status === 'streaming') {
    if (!isStale(parent, Date.now(), aliveSince)) {
      throw new ApiError('INVALID_REQUEST', 'The previous answer is still being written: stop it or wait for it', { param: 'parentId' });
    }
    await interrupt(ops, parent);
  }
  const { messages, ...conversation } = c;
  return { ops, conversation, parentId, isFirst: parentId === null && messages.length === 0 };
}

export interface PlacedTurn {
  conversation: Conversation;
  user: Message;
  assistant: Message;
  images: StoredImage[];
}

/** Writes the turn's two messages with its images, and places the images in it. */
export async function placeTurn(
  place: TurnPlace,
  images: UserImages,
  o: { request: string; caption: string; modelId: string; made: StoredImage[]; streaming: boolean },
): Promise<PlacedTurn> {
  const { ops, conversation: c } = place;
  const user = await ops.addMessage(c.id, { parentId: place.parentId, role: 'user', content: o.request });
  const assistant = await ops.addMessage(c.id, {
    parentId: user.id,
    role: 'assistant',
    content: o.caption,
    attachments: o.made.map(imageAttachment),
    modelId: o.modelId,
    status: o.streaming ? 'streaming' : 'complete',
    usage: imagesUsage(o.made),
  });
  for (const i of o.made) await images.place(i.id, c.id, assistant.id);
  if (place.isFirst && c.title === DEFAULT_TITLE) await ops.rename(c.id, autoTitle(o.request));
  return {
    conversation: await ops.conversation(c.id),
    user,
    assistant,
    images: o.made.map((i) => ({ ...i, conversationId: c.id, messageId: assistant.id })),
  };
}

const toMessageError = (e: unknown): MessageError => {
  const err = toApiError(e);
  const retry = Number(err.headers?.['retry-after']);
  return {
    code: err.code,
    status: err.status,
    message: err.message.slice(0, 2000),
    ...(Number.isFinite(retry) && retry > 0 ? { retryAfter: Math.min(retry, 86_400) } : {}),
  };
};

/** Makes one image; rejects when the call failed (nothing billed for it) or was aborted. */
export type MakeImage = (index: number, signal: AbortSignal) => Promise<StoredImage>;

interface Run {
  stop(): void;
  done: Promise<void>;
}

/** The generations running in this process, by assistant message id. */
export class ImageRuns {
  private readonly live = new Map<string, Run>();
  private readonly store: Store;

  constructor(store: Store) {
    this.store = store;
  }

  /** Makes images `from`…`count - 1` into the user's streaming message `messageId`, then ends the message. */
  start(userId: string, messageId: string, from: number, count: number, make: MakeImage): void {
    const images = userImages(this.store, userId);
    const ops = userConversations(this.store, userId);
    const ctl = new AbortController();
    let closing = false;
    // The heartbeat keeps the message from looking dead, and notices a stop made through any instance.
    const beat = setInterval(() => {
      images.touch(messageId).then(
        (alive) => alive || ctl.abort(),
        () => undefined,
      );
    }, HEARTBEAT_MS);
    beat.unref();
    const done = (async () => {
      let error: MessageError | null = null;
      try {
        for (let i = from; i < count && !ctl.signal.aborted; i++) {
          let image: StoredImage;
          try {
            image = await make(i, ctl.signal);
          } catch (e) {
            if (!ctl.signal.aborted) error = toMessageError(e);
            break;
          }
          await images.attach(messageId, image);
        }
      } catch (e) {
        // Stopped meanwhile (the chat deleted, say): nothing to report.
        if (!ctl.signal.aborted) {
          log.error({ err: e }, `image generation into message ${messageId} failed`);
          error = toMessageError(e);
        }
      } finally {
        clearInterval(beat);
      }
      // Only a message still 'streaming' is ended here: a stop (here or on another instance) already ended it.
      const end = closing ? { status: 'stopped' as const } : error ? { status: 'error' as const, error } : { status: 'complete' as const };
      await ops.updateMessage(messageId, end, { ifStatus: 'streaming' }).catch((e) => {
        if (!(isApiError(e) && e.code === 'NOT_FOUND')) log.error({ err: e }, `could not end image message ${messageId}`);
      });
    })().finally(() => this.live.delete(messageId));
    this.live.set(messageId, {
      stop: () => {
        closing = true;
        ctl.abort();
      },
      done,
    });
  }

  /** Whether a generation into this message runs here. */
  has(messageId: string): boolean {
    return this.live.has(messageId);
  }

  /** Stops every run, keeping what each made ('stopped'); for shutdown. */
  async close(): Promise<void> {
    const runs = [...this.live.values()];
    for (const r of runs) r.stop();
    await Promise.all(runs.map((r) => r.done));
  }
}
