// Read-only share links of a chat (issue 32). Sharing stores a snapshot of ONE branch (the one on the owner's screen)
// under an unguessable token: each message's words, reasoning, sources and files as they read at that moment, and
// nothing of the account (no usage or cost, no memories, no errors' details, no tool arguments or results, no other
// branch). Images are copied into the snapshot, so the link shows what was shared even after the chat changes, and
// are served under the share only. The owner lists and revokes their links (revoking deletes the snapshot); anyone
// with the token reads it; a signed-in reader can copy it into a new chat of their own.
import { randomBytes } from 'node:crypto';
import sharp from 'sharp';
import { ApiError } from '../api/errors.ts';
import type { Store } from '../db/store.ts';
import { userConversations } from './conversations.ts';
import { userImages } from './images.ts';
import { notFound } from './input.ts';
import { stamp } from './rows.ts';
import { branchThrough } from './tree.ts';
import type { Attachment, Conversation, Message } from './types.ts';
import type { AppShare, AppSharedAttachment, AppSharedChat, AppSharedMessage } from './wire-shares.ts';

/** A user's live links at most (each holds a copy of its branch). */
export const MAX_SHARES = 500;
/** A snapshot's size at most (its images are most of it). */
export const MAX_SNAPSHOT_BYTES = 50 * 1024 * 1024;
const TOKEN = /^[A-Za-z0-9_-]{32}$/;
const DATA_IMAGE = /^data:(image\/(?:png|jpeg|webp|gif));base64,([A-Za-z0-9+/=]+)$/i;

/** An attachment as stored in a snapshot: the file's bytes are an index into `files`. */
interface SnapAttachment {
  name: string;
  type: string;
  size: number;
  kind: 'image' | 'document';
  file?: number;
}
interface SnapMessage extends Omit<AppSharedMessage, 'attachments'> {
  attachments: SnapAttachment[];
}
interface Snapshot {
  messages: SnapMessage[];
  /** Images: content type and base64 bytes. */
  files: { type: string; data: string }[];
}

interface ShareRow {
  token: string;
  conversation_id: string;
  leaf_id: string;
  title: string;
  model_id: string | null;
  message_count: number | string;
  created_at: number | string;
}
const COLS = 'token, conversation_id, leaf_id, title, model_id, message_count, created_at';

const toShare = (r: ShareRow): AppShare => ({
  token: r.token,
  path: `/s/${r.token}`,
  conversationId: r.conversation_id,
  leafId: r.leaf_id,
  title: r.title,
  messageCount: Number(r.message_count),
  createdAt: Number(r.created_at),
});

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
const validToken = (token: string) => TOKEN.test(token);
const gone = () => new ApiError('NOT_FOUND', 'This shared chat does not exist or its link was revoked');

/** The words and files of one message, as a snapshot keeps them. */
async function snapMessage(m: Message, images: ReturnType<typeof userImages>, files: Snapshot['files']): Promise<SnapMessage> {
  const attachments: SnapAttachment[] = [];
  for (const a of m.attachments as Attachment[]) {
    const name = str(a.name) ?? str(a.filename);
    if (!name) continue;
    const type = str(a.type) ?? '';
    const image = DATA_IMAGE.exec(str(a.dataUrl) ?? '');
    if ((a.kind === 'image' || (a.kind === undefined && type.startsWith('image/'))) && image) {
      files.push({ type: image[1].toLowerCase(), data: image[2] });
      attachments.push({ name, type, size: num(a.size), kind: 'image', file: files.length - 1 });
    } else if (a.kind === 'generated' && typeof a.id === 'string') {
      // A picture the chat made: copied from the owner's images (left as a name if it was deleted since).
      const made = await images.file(a.id).catch(() => null);
      if (made) {
        files.push({ type: made.contentType, data: made.data.toString('base64') });
        attachments.push({ name, type: made.contentType, size: made.data.length, kind: 'image', file: files.length - 1 });
      } else attachments.push({ name, type, size: num(a.size), kind: 'document' });
    } else attachments.push({ name, type, size: num(a.size), kind: 'document' });
  }
  const out: SnapMessage = {
    role: m.role === 'assistant' ? 'assistant' : 'user',
    content: m.content,
    reasoning: m.reasoning,
    modelId: m.role === 'assistant' ? m.modelId : null,
    // A share is a finished record: an answer still being written reads as stopped where it was.
    status: m.status === 'streaming' ? 'stopped' : m.status,
    attachments,
    citations: m.citations.map((c) => ({
      url: c.url,
      ...(c.title !== undefined ? { title: c.title } : {}),
      ...(c.date !== undefined ? { date: c.date } : {}),
      ...(typeof c.passage === 'string' ? { passage: c.passage } : {}),
    })),
  };
  if (m.toolSteps?.length) out.tools = m.toolSteps.map((s) => ({ name: s.name, server: s.server, status: s.status }));
  return out;
}

export interface UserShares {
  /** Shares the branch through `leafId` (continued to its newest turn, as the chat shows it). */
  create(conversationId: string, leafId: string): Promise<AppShare>;
  list(opts?: { conversationId?: string }): Promise<AppShare[]>;
  revoke(token: string): Promise<void>;
}

/** The owner's side: every statement filters by the user. */
export function userShares(store: Store, userId: string): UserShares {
  if (typeof userId !== 'string' || !userId) throw new TypeError('userShares needs a user id');
  const ops = userConversations(store, userId);

  return {
    async create(conversationId, leafId) {
      const c = await ops.get(conversationId);
      if (!c.messages.some((m) => m.id === leafId)) throw notFound('Message');
      const branch = branchThrough(c.messages, leafId).filter((m) => m.role !== 'system');
      if (!branch.length) throw new ApiError('INVALID_REQUEST', 'There is nothing in this chat to share yet', { param: 'leafId' });
      const live = await store.get<{ n: number | string }>('SELECT COUNT(*) AS n FROM shares WHERE user_id = $1', [userId]);
      if (Number(live?.n ?? 0) >= MAX_SHARES)
        throw new ApiError('INVALID_REQUEST', `You have ${MAX_SHARES} share links: revoke some before making another`, { param: 'leafId' });
      const images = userImages(store, userId);
      const snap: Snapshot = { messages: [], files: [] };
      for (const m of branch) snap.messages.push(await snapMessage(m, images, snap.files));
      const text = JSON.stringify(snap);
      if (Buffer.byteLength(text) > MAX_SNAPSHOT_BYTES)
        throw new ApiError('INVALID_REQUEST', `This branch is too large to share (over ${MAX_SNAPSHOT_BYTES / 1024 / 1024} MB with its images)`, {
          param: 'leafId',
        });
      const row: ShareRow = {
        token: randomBytes(24).toString('base64url'),
        conversation_id: c.id,
        leaf_id: branch.at(-1)?.id ?? leafId,
        title: c.title,
        model_id: c.modelId,
        message_count: branch.length,
        created_at: stamp(),
      };
      await store.run(
        'INSERT INTO shares (token, user_id, conversation_id, leaf_id, title, model_id, messages, message_count, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)',
        [row.token, userId, row.conversation_id, row.leaf_id, row.title, row.model_id, text, row.message_count, row.created_at],
      );
      return toShare(row);
    },

    async list(opts = {}) {
      const params: string[] = [userId];
      let where = 'user_id = $1';
      if (opts.conversationId !== undefined) {
        params.push(opts.conversationId);
        where += ' AND conversation_id = $2';
      }
      const rows = await store.all<ShareRow>(`SELECT ${COLS} FROM shares WHERE ${where} ORDER BY created_at DESC, token DESC LIMIT ${MAX_SHARES}`, params);
      return rows.map(toShare);
    },

    async revoke(token) {
      if (!validToken(token)) throw new ApiError('NOT_FOUND', 'Share link not found');
      const n = await store.run('DELETE FROM shares WHERE token = $1 AND user_id = $2', [token, userId]);
      if (n === 0) throw new ApiError('NOT_FOUND', 'Share link not found');
    },
  };
}

async function snapshotOf(store: Store, token: string): Promise<{ row: ShareRow; snap: Snapshot }> {
  if (!validToken(token)) throw gone();
  const row = await store.get<ShareRow & { messages: string }>(`SELECT ${COLS}, messages FROM shares WHERE token = $1`, [token]);
  if (!row) throw gone();
  return { row, snap: JSON.parse(row.messages) as Snapshot };
}

/** The request header the server sets on a shared chat's page request: `live` or `gone` (lib/http/server.ts). */
export const SHARE_HEADER = 'x-lagoon-share';

/** Whether a link is live (the page answers 404 otherwise). */
export async function shareExists(store: Store, token: string): Promise<boolean> {
  if (!validToken(token)) return false;
  return !!(await store.get<{ token: string }>('SELECT token FROM shares WHERE token = $1', [token]));
}

/** The public snapshot: images as URLs under the share, never their bytes inline. */
export async function openShare(store: Store, token: string, appPrefix: string): Promise<AppSharedChat> {
  const { row, snap } = await snapshotOf(store, token);
  return {
    title: row.title,
    modelId: row.model_id,
    sharedAt: Number(row.created_at),
    messages: snap.messages.map((m) => ({
      ...m,
      attachments: m.attachments.map(
        ({ file, ...a }): AppSharedAttachment => (file === undefined ? a : { ...a, url: `${appPrefix}/shares/${token}/files/${file}` }),
      ),
    })),
  };
}

/** One image of a snapshot. */
export async function shareFile(store: Store, token: string, index: string): Promise<{ type: string; data: Buffer }> {
  const { snap } = await snapshotOf(store, token);
  const f = /^\d{1,6}$/.test(index) ? snap.files[Number(index)] : undefined;
  if (!f) throw new ApiError('NOT_FOUND', 'File not found');
  return { type: f.type, data: Buffer.from(f.data, 'base64') };
}

/**
 * "Continue this chat": the snapshot becomes a new conversation of the reader's, one message after another. A user's
 * images keep their bytes (a model with vision reads them again); an answer's pictures become the reader's own images
 * (no cost: they were not made for them); documents are names only (their bytes were never shared).
 */
export async function continueShare(store: Store, token: string, userId: string, modelId: string | null): Promise<Conversation> {
  const { row, snap } = await snapshotOf(store, token);
  const ops = userConversations(store, userId);
  const images = userImages(store, userId);
  const c = await ops.create({ title: row.title, modelId });
  let parentId: string | null = null;
  let asked = '';
  for (const [i, m] of snap.messages.entries()) {
    const pictures: { type: string; data: Buffer }[] = [];
    const attachments: Attachment[] = [];
    for (const [j, a] of m.attachments.entries()) {
      const f = a.file === undefined ? undefined : snap.files[a.file];
      const base = { id: `shared-${i}-${j}`, name: a.name, type: a.type, size: a.size };
      if (f && m.role === 'assistant') pictures.push({ type: f.type, data: Buffer.from(f.data, 'base64') });
      else attachments.push(f ? { ...base, kind: 'image', dataUrl: `data:${f.type};base64,${f.data}` } : { ...base, kind: 'shared' });
    }
    const added: Message = await ops.addMessage(c.id, {
      parentId,
      role: m.role,
      content: m.content,
      reasoning: m.reasoning,
      attachments,
      citations: m.citations.map((c) => ({ ...c })),
      modelId: m.modelId,
      status: m.status === 'streaming' ? 'stopped' : m.status,
    });
    for (const p of pictures) {
      const meta = await sharp(p.data)
        .metadata()
        .catch(() => ({ width: 0, height: 0 }));
      const image = await images.add({
        conversationId: c.id,
        messageId: added.id,
        sourceId: null,
        action: 'generate',
        modelId: m.modelId ?? 'shared',
        prompt: asked.slice(0, 4000),
        params: {},
        seed: null,
        width: meta.width ?? 0,
        height: meta.height ?? 0,
        contentType: p.type,
        requestId: `shared-${row.token.slice(0, 8)}`,
        costUsd: 0,
        costDiem: 0,
        data: p.data,
      });
      await images.attach(added.id, image);
    }
    if (m.role === 'user') asked = m.content;
    parentId = added.id;
  }
  return ops.conversation(c.id);
}
