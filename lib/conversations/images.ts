// The images a browser-app user made (generated, varied, upscaled, cut out), stored per user like message attachments:
// every statement filters by the user this was built for, so another user's image id is as unknown as a made-up one
// (NOT_FOUND). An image may sit in a chat: its assistant message lists it as an attachment reference
// ({id, name, type, size, kind: 'generated'}: no bytes, and not an `image` attachment, so the chat never sends it to a
// text model nor asks for vision), and the image row names the message. The bytes are base64 text in the row's last
// column; list and metadata reads never select it.
import { randomUUID } from 'node:crypto';
import { ApiError } from '../api/errors.ts';
import type { Param, Queryable, Store } from '../db/store.ts';
import { clampLimit } from './input.ts';
import { owned, stamp } from './rows.ts';

export type ImageAction = 'generate' | 'vary' | 'upscale' | 'background-remove' | 'edit';

/** What the request that made an image asked for (enough to make another like it). */
export interface ImageParams {
  negativePrompt?: string;
  style?: string;
  aspectRatio?: string;
  resolution?: string;
  width?: number;
  height?: number;
  scale?: number;
  /** A generation's variant (0-based) and how many were asked for. */
  variant?: number;
  variants?: number;
}

export interface StoredImage {
  id: string;
  conversationId: string | null;
  messageId: string | null;
  sourceId: string | null;
  action: ImageAction;
  modelId: string;
  prompt: string;
  params: ImageParams;
  seed: number | null;
  width: number;
  height: number;
  contentType: string;
  bytes: number;
  /** The usage row of the call that made it. */
  requestId: string;
  /** What it cost, in micro-units. */
  costUsd: number;
  costDiem: number;
  createdAt: number;
}

export type NewImage = Omit<StoredImage, 'id' | 'bytes' | 'createdAt' | 'conversationId' | 'messageId'> & {
  data: Buffer;
  conversationId?: string | null;
  messageId?: string | null;
};

/** A message's reference to one of its images (no bytes). */
export interface ImageAttachment {
  [key: string]: unknown;
  id: string;
  name: string;
  type: string;
  size: number;
  kind: 'generated';
}

interface ImageRow {
  id: string;
  conversation_id: string | null;
  message_id: string | null;
  source_id: string | null;
  action: string;
  model_id: string;
  prompt: string;
  params: string;
  seed: number | string | null;
  width: number | string;
  height: number | string;
  content_type: string;
  bytes: number | string;
  request_id: string;
  cost_usd: number | string;
  cost_diem: number | string;
  created_at: number | string;
}

// Every column but the bytes. A chat that was deleted leaves its images in the gallery, no longer placed in it.
const COLS = `i.id, CASE WHEN c.id IS NULL THEN NULL ELSE i.conversation_id END AS conversation_id,
  CASE WHEN c.id IS NULL THEN NULL ELSE i.message_id END AS message_id, i.source_id, i.action, i.model_id, i.prompt,
  i.params, i.seed, i.width, i.height, i.content_type, i.bytes, i.request_id, i.cost_usd, i.cost_diem, i.created_at`;
const FROM = 'user_images i LEFT JOIN conversations c ON c.id = i.conversation_id AND c.user_id = i.user_id';

function parseParams(text: string): ImageParams {
  try {
    const v = JSON.parse(text);
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as ImageParams) : {};
  } catch {
    return {};
  }
}

const toImage = (r: ImageRow): StoredImage => ({
  id: r.id,
  conversationId: r.conversation_id,
  messageId: r.message_id,
  sourceId: r.source_id,
  action: r.action as ImageAction,
  modelId: r.model_id,
  prompt: r.prompt,
  params: parseParams(r.params),
  seed: r.seed === null ? null : Number(r.seed),
  width: Number(r.width),
  height: Number(r.height),
  contentType: r.content_type,
  bytes: Number(r.bytes),
  requestId: r.request_id,
  costUsd: Number(r.cost_usd),
  costDiem: Number(r.cost_diem),
  createdAt: Number(r.created_at),
});

const EXTENSIONS: Record<string, string> = { 'image/png': 'png', 'image/jpeg': 'jpg', 'image/webp': 'webp' };
export const extensionOf = (contentType: string): string => EXTENSIONS[contentType] ?? 'bin';

/** The reference a message keeps to an image. */
export function imageAttachment(image: Pick<StoredImage, 'id' | 'contentType' | 'bytes' | 'seed' | 'action'>): ImageAttachment {
  const stem = image.seed !== null ? `image-${image.seed}` : `${image.action}-${image.id.slice(0, 8)}`;
  return { id: image.id, name: `${stem}.${extensionOf(image.contentType)}`, type: image.contentType, size: image.bytes, kind: 'generated' };
}

export const imageNotFound = (id: string) =>
  new ApiError('NOT_FOUND', `No image ${JSON.stringify(String(id).slice(0, 100))}: unknown or deleted`, { param: 'id' });

/** Image ids are UUIDs: anything else is unknown without asking the database. */
const IMAGE_ID = /^[0-9a-f-]{36}$/i;

function decodeCursor(cursor: string): [number, string] {
  const bad = () => new ApiError('INVALID_REQUEST', 'invalid cursor', { param: 'cursor' });
  let v: unknown;
  try {
    v = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw bad();
  }
  if (!Array.isArray(v) || v.length !== 2 || !Number.isSafeInteger(v[0]) || typeof v[1] !== 'string') throw bad();
  return [v[0] as number, v[1] as string];
}
const encodeCursor = (i: StoredImage) => Buffer.from(JSON.stringify([i.createdAt, i.id])).toString('base64url');

export interface ImageListOptions {
  limit?: number;
  cursor?: string | null;
  conversationId?: string;
  messageId?: string;
}

export interface UserImages {
  add(input: NewImage): Promise<StoredImage>;
  /** The image's metadata (NOT_FOUND unless it is this user's). */
  get(id: string): Promise<StoredImage>;
  /** The image with its bytes. */
  file(id: string): Promise<StoredImage & { data: Buffer }>;
  /** Newest first (a conversation's or a message's: oldest first, as they were made). */
  list(opts?: ImageListOptions): Promise<{ items: StoredImage[]; nextCursor: string | null }>;
  remove(id: string): Promise<void>;
  /** Places the image in a message of the user's chat. */
  place(id: string, conversationId: string, messageId: string): Promise<void>;
  /**
   * Adds the image to its message's attachments and its cost to the message's usage, and marks the message written
   * now (a live generation's heartbeat). NOT_FOUND when the message is not the user's.
   */
  attach(messageId: string, image: StoredImage): Promise<void>;
  /** Marks a message being generated as alive; false once it is no longer 'streaming' (stopped, interrupted, gone). */
  touch(messageId: string): Promise<boolean>;
}

export function userImages(store: Store, userId: string): UserImages {
  if (typeof userId !== 'string' || !userId) throw new TypeError('userImages needs a user id');

  async function getIn(q: Queryable, id: string): Promise<StoredImage> {
    if (typeof id !== 'string' || !IMAGE_ID.test(id)) throw imageNotFound(id);
    const row = await q.get<ImageRow>(`SELECT ${COLS} FROM ${FROM} WHERE i.id = $1 AND i.user_id = $2`, [id, userId]);
    if (!row) throw imageNotFound(id);
    return toImage(row);
  }

  return {
    async add(input) {
      const id = randomUUID();
      const at = stamp();
      const data = input.data.toString('base64');
      await store.run(
        `INSERT INTO user_images (id, user_id, conversation_id, message_id, source_id, action, model_id, prompt, params, seed, width, height,
           content_type, bytes, request_id, cost_usd, cost_diem, created_at, data)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19)`,
        [
          id,
          userId,
          input.conversationId ?? null,
          input.messageId ?? null,
          input.sourceId,
          input.action,
          input.modelId,
          input.prompt,
          JSON.stringify(input.params),
          input.seed,
          input.width,
          input.height,
          input.contentType,
          input.data.length,
          input.requestId,
          input.costUsd,
          input.costDiem,
          at,
          data,
        ],
      );
      return getIn(store, id);
    },

    get: (id) => getIn(store, id),

    async file(id) {
      const meta = await getIn(store, id);
      const row = await store.get<{ data: string }>('SELECT data FROM user_images WHERE id = $1 AND user_id = $2', [meta.id, userId]);
      if (!row) throw imageNotFound(id);
      return { ...meta, data: Buffer.from(row.data, 'base64') };
    },

    async list(opts = {}) {
      const limit = clampLimit(opts.limit, 30, 100);
      const params: Param[] = [userId];
      let where = 'i.user_id = $1';
      const placed = opts.conversationId !== undefined || opts.messageId !== undefined;
      if (opts.conversationId !== undefined) {
        params.push(opts.conversationId);
        where += ` AND i.conversation_id = $${params.length} AND c.id IS NOT NULL`;
      }
      if (opts.messageId !== undefined) {
        params.push(opts.messageId);
        where += ` AND i.message_id = $${params.length} AND c.id IS NOT NULL`;
      }
      // A chat's images read in the order they were made; the gallery, newest first.
      const [cmp, dir] = placed ? ['>', 'ASC'] : ['<', 'DESC'];
      if (opts.cursor) {
        const [at, id] = decodeCursor(opts.cursor);
        params.push(at, id);
        where += ` AND (i.created_at ${cmp} $${params.length - 1} OR (i.created_at = $${params.length - 1} AND i.id ${cmp} $${params.length}))`;
      }
      params.push(limit + 1);
      const rows = await store.all<ImageRow>(
        `SELECT ${COLS} FROM ${FROM} WHERE ${where} ORDER BY i.created_at ${dir}, i.id ${dir} LIMIT $${params.length}`,
        params,
      );
      const items = rows.slice(0, limit).map(toImage);
      return { items, nextCursor: rows.length > limit ? encodeCursor(items[items.length - 1]) : null };
    },

    async remove(id) {
      const image = await getIn(store, id);
      const n = await store.run('DELETE FROM user_images WHERE id = $1 AND user_id = $2', [image.id, userId]);
      if (n === 0) throw imageNotFound(id);
    },

    async place(id, conversationId, messageId) {
      // Only into a message of one of the user's own chats.
      const n = await store.run(
        `UPDATE user_images SET conversation_id = $1, message_id = $2 WHERE id = $3 AND user_id = $4
           AND EXISTS (SELECT 1 FROM messages m WHERE m.id = $2 AND m.conversation_id = $1 AND ${owned(4)})`,
        [conversationId, messageId, id, userId],
      );
      if (n === 0) throw imageNotFound(id);
    },

    async attach(messageId, image) {
      await store.tx(async (q) => {
        const row = await q.get<{ attachments: string; usage: string | null }>(
          `SELECT m.attachments, m.usage FROM messages m WHERE m.id = $1 AND ${owned(2)}${store.forUpdate}`,
          [messageId, userId],
        );
        if (!row) throw new ApiError('NOT_FOUND', 'Message not found');
        const attachments = parseList(row.attachments);
        if (!attachments.some((a) => a.id === image.id)) attachments.push(imageAttachment(image));
        const usage = parseUsage(row.usage);
        // Summed in micro-units, so the total is exact.
        const add = (usd: number, micros: number) => (Math.round(usd * 1e6) + micros) / 1e6;
        const next = { costUsd: add(usage.costUsd, image.costUsd), costDiem: add(usage.costDiem, image.costDiem) };
        await q.run(`UPDATE messages SET attachments = $1, usage = $2, updated_at = $3 WHERE id = $4 AND ${owned(5, 'messages')}`, [
          JSON.stringify(attachments),
          JSON.stringify(next),
          stamp(),
          messageId,
          userId,
        ]);
      });
    },

    async touch(messageId) {
      const n = await store.run(`UPDATE messages SET updated_at = $1 WHERE id = $2 AND status = 'streaming' AND ${owned(3, 'messages')}`, [
        stamp(),
        messageId,
        userId,
      ]);
      return n > 0;
    },
  };
}

function parseList(text: string): Record<string, unknown>[] {
  try {
    const v = JSON.parse(text);
    return Array.isArray(v) ? v : [];
  } catch {
    return [];
  }
}

/** A message's usage as the chat's wire reads it (costUsd, costDiem in USD). */
function parseUsage(text: string | null): { costUsd: number; costDiem: number } {
  try {
    const v = text ? JSON.parse(text) : null;
    const n = (x: unknown) => (typeof x === 'number' && Number.isFinite(x) ? x : 0);
    return { costUsd: n(v?.costUsd), costDiem: n(v?.costDiem) };
  } catch {
    return { costUsd: 0, costDiem: 0 };
  }
}

/** The usage a message made of these images starts with (the chat's AppUsage fields; no tokens). */
export const imagesUsage = (images: Pick<StoredImage, 'costUsd' | 'costDiem'>[]) => ({
  costUsd: images.reduce((s, i) => s + i.costUsd, 0) / 1e6,
  costDiem: images.reduce((s, i) => s + i.costDiem, 0) / 1e6,
});
