// Chat history exports, read into one shape: a ChatGPT export (`conversations.json`: each chat's `mapping` tree,
// every branch), an Open WebUI export (its `history` tree), a LibreChat export (a flat `messages` list or its
// `messagesTree`), and Lagoon's own: a chat's JSON export (every branch: `parentId`), a list of them, or the zip of
// all chats (archive.ts). Pure: it runs in a worker thread (import-worker.ts), as an export can be large.
// What has no place here is counted, not guessed at: system and tool messages, hidden context, images and files.

import { unzipSync } from 'fflate';

export type ImportSource = 'chatgpt' | 'open-webui' | 'librechat' | 'lagoon';

export interface ImportedMessage {
  key: string;
  /** The nearest kept ancestor (a dropped message's children move up to it); null at a root. */
  parentKey: string | null;
  role: 'user' | 'assistant';
  content: string;
}

export interface ImportedChat {
  title: string;
  /** Unix ms, when the export says. */
  createdAt: number | null;
  updatedAt: number | null;
  /** Parents before children. */
  messages: ImportedMessage[];
}

export interface ParsedImport {
  source: ImportSource;
  chats: ImportedChat[];
  /** Chats not taken, with why. */
  skipped: { title: string; reason: string }[];
  /** Messages left out: system, tool and hidden ones, and the non-text parts of the rest (images, files). */
  dropped: number;
}

/** A node of any source's tree before it is cut down to what is kept. */
interface RawNode {
  key: string;
  parent: string | null;
  /** null: not kept (its children move up). */
  message: { role: 'user' | 'assistant'; content: string } | null;
  order: number;
}

const MAX_TITLE = 200;
const ms = (seconds: unknown): number | null => (typeof seconds === 'number' && Number.isFinite(seconds) ? Math.round(seconds * 1000) : null);
const isoMs = (v: unknown): number | null => (typeof v === 'string' && !Number.isNaN(Date.parse(v)) ? Date.parse(v) : ms(v));
const text = (v: unknown): string => (typeof v === 'string' ? v : '');
const titleOf = (v: unknown): string => text(v).trim().slice(0, MAX_TITLE) || 'Imported chat';

/**
 * Keeps the kept nodes, each under its nearest kept ancestor, parents first (ties in the source's order). The branch
 * that was on screen there (`current`) goes last: a chat opens on its newest branch, so it opens where it was left.
 */
function cut(nodes: RawNode[], current?: string | null): ImportedMessage[] {
  const byKey = new Map(nodes.map((n) => [n.key, n]));
  const keptAncestor = (n: RawNode): string | null => {
    const seen = new Set<string>();
    let p = n.parent;
    while (p !== null && byKey.has(p) && !seen.has(p)) {
      seen.add(p);
      const node = byKey.get(p)!;
      if (node.message) return node.key;
      p = node.parent;
    }
    return null;
  };
  const kept = nodes.filter((n) => n.message).map((n) => ({ node: n, parentKey: keptAncestor(n) }));
  const children = new Map<string | null, typeof kept>();
  for (const k of kept) {
    const list = children.get(k.parentKey) ?? [];
    list.push(k);
    children.set(k.parentKey, list);
  }
  const out: ImportedMessage[] = [];
  const queue = [...(children.get(null) ?? [])].sort((a, b) => a.node.order - b.node.order);
  while (queue.length) {
    const k = queue.shift()!;
    out.push({ key: k.node.key, parentKey: k.parentKey, role: k.node.message!.role, content: k.node.message!.content });
    queue.push(...[...(children.get(k.node.key) ?? [])].sort((a, b) => a.node.order - b.node.order));
  }
  const shown = current == null ? undefined : byKey.get(current);
  const leaf = shown && (shown.message ? shown.key : keptAncestor(shown));
  if (!leaf) return out;
  // The shown message and what hangs under it, moved to the end in the same order: their parents are all before them.
  const under = new Set([leaf]);
  for (const m of out) if (m.parentKey !== null && under.has(m.parentKey)) under.add(m.key);
  return [...out.filter((m) => !under.has(m.key)), ...out.filter((m) => under.has(m.key))];
}

function chatgptChat(c: Record<string, any>, count: { dropped: number }): ImportedChat {
  const nodes: RawNode[] = [];
  for (const [key, n] of Object.entries((c.mapping ?? {}) as Record<string, any>)) {
    const m = n?.message;
    const role = m?.author?.role;
    let message: RawNode['message'] = null;
    if (m && (role === 'user' || role === 'assistant') && !m.metadata?.is_visually_hidden_from_conversation) {
      const type = m.content?.content_type;
      const parts: unknown[] = Array.isArray(m.content?.parts) ? m.content.parts : [];
      if (type === 'text' || type === 'multimodal_text') {
        const strings = parts.filter((p): p is string => typeof p === 'string');
        count.dropped += parts.length - strings.length;
        const content = strings.join('\n\n').trim();
        if (content) message = { role, content };
      } else count.dropped++;
    } else if (m) count.dropped++;
    nodes.push({ key, parent: typeof n?.parent === 'string' ? n.parent : null, message, order: ms(m?.create_time) ?? nodes.length });
  }
  return { title: titleOf(c.title), createdAt: ms(c.create_time), updatedAt: ms(c.update_time), messages: cut(nodes, c.current_node) };
}

function openWebUiChat(c: Record<string, any>, count: { dropped: number }): ImportedChat {
  const chat = c.chat ?? {};
  const history: Record<string, any> = chat.history?.messages ?? {};
  const list: any[] = Object.keys(history).length ? Object.values(history) : Array.isArray(chat.messages) ? chat.messages : [];
  const nodes: RawNode[] = list.map((m, i) => {
    const role = m?.role;
    const content = text(m?.content).trim();
    const keep = (role === 'user' || role === 'assistant') && content;
    if (!keep) count.dropped++;
    return {
      key: String(m?.id ?? i),
      parent: m?.parentId == null ? null : String(m.parentId),
      message: keep ? { role, content } : null,
      order: ms(m?.timestamp) ?? i,
    };
  });
  return { title: titleOf(c.title ?? chat.title), createdAt: ms(c.created_at), updatedAt: ms(c.updated_at), messages: cut(nodes, chat.history?.currentId) };
}

const LIBRECHAT_ROOT = '00000000-0000-0000-0000-000000000000';

function libreChat(c: Record<string, any>, count: { dropped: number }): ImportedChat {
  const flat: any[] = [];
  const walk = (list: any[], parent: string | null) => {
    for (const m of list) {
      flat.push({ ...m, parentMessageId: m.parentMessageId ?? parent });
      if (Array.isArray(m.children)) walk(m.children, m.messageId);
    }
  };
  if (Array.isArray(c.messagesTree)) walk(c.messagesTree, null);
  else if (Array.isArray(c.messages)) flat.push(...c.messages);
  const nodes: RawNode[] = flat.map((m, i) => {
    const content = text(m?.text).trim();
    const role = m?.isCreatedByUser === true ? 'user' : 'assistant';
    if (!content) count.dropped++;
    const parent = m?.parentMessageId && m.parentMessageId !== LIBRECHAT_ROOT ? String(m.parentMessageId) : null;
    return { key: String(m?.messageId ?? i), parent, message: content ? { role, content } : null, order: isoMs(m?.createdAt) ?? i };
  });
  return { title: titleOf(c.title), createdAt: isoMs(c.createdAt), updatedAt: isoMs(c.updatedAt), messages: cut(nodes) };
}

/** Lagoon's own export (export.ts#exportObject): every message with its id and parentId, in creation order. */
function lagoonChat(c: Record<string, any>, count: { dropped: number }): ImportedChat {
  const list: any[] = Array.isArray(c.messages) ? c.messages : [];
  const nodes: RawNode[] = list.map((m, i) => {
    const role = m?.role;
    const content = text(m?.content).trim();
    const keep = (role === 'user' || role === 'assistant') && content;
    if (!keep) count.dropped++;
    // Files went out by name only: they cannot come back.
    if (Array.isArray(m?.attachments)) count.dropped += m.attachments.length;
    return {
      key: String(m?.id ?? i),
      parent: m?.parentId == null ? null : String(m.parentId),
      message: keep ? { role, content } : null,
      order: isoMs(m?.createdAt) ?? i,
    };
  });
  const created = isoMs(c.createdAt);
  const last = list.length ? isoMs(list[list.length - 1]?.createdAt) : null;
  return { title: titleOf(c.title), createdAt: created, updatedAt: last ?? created, messages: cut(nodes) };
}

const isLagoonChat = (f: Record<string, unknown>): boolean => {
  if (!Array.isArray(f.messages) || typeof f.id !== 'string' || typeof f.createdAt !== 'string' || !('model' in f)) return false;
  const m0 = f.messages[0] as Record<string, unknown> | undefined;
  return !m0 || (typeof m0.role === 'string' && 'parentId' in m0);
};

/** Which export this is, from its shape; null: none we know. */
export function detectSource(data: unknown): ImportSource | null {
  const first = Array.isArray(data) ? data[0] : data;
  if (!first || typeof first !== 'object') return null;
  const f = first as Record<string, unknown>;
  if (f.mapping && typeof f.mapping === 'object') return 'chatgpt';
  if (f.chat && typeof f.chat === 'object') return 'open-webui';
  if (isLagoonChat(f)) return 'lagoon';
  if (Array.isArray(f.messages) || Array.isArray(f.messagesTree) || typeof f.conversationId === 'string') return 'librechat';
  return null;
}

/** A zip's first bytes. */
const isZip = (b: Uint8Array) => b.length > 4 && b[0] === 0x50 && b[1] === 0x4b && b[2] === 0x03 && b[3] === 0x04;
/** What a zip may unpack to at most (a small file can inflate to gigabytes). */
export const MAX_UNZIPPED = 1024 * 1024 * 1024;

/**
 * Reads an export file's bytes: JSON, or a zip of Lagoon's chat files (every `.json` in it, each one chat or a list).
 * Throws an Error whose message says what is wrong with it.
 */
export function parseImportBytes(bytes: Uint8Array, limits: { maxChats: number; maxMessages: number }): ParsedImport {
  if (!isZip(bytes)) return parseImport(Buffer.from(bytes).toString('utf8'), limits);
  let total = 0;
  let files: Record<string, Uint8Array>;
  try {
    files = unzipSync(bytes, {
      filter: (f) => {
        if (!f.name.toLowerCase().endsWith('.json')) return false;
        total += f.originalSize;
        if (total > MAX_UNZIPPED) throw new Error('too large');
        return true;
      },
    });
  } catch (e) {
    throw new Error((e as Error).message === 'too large' ? 'The zip unpacks to more than 1 GB' : 'The zip could not be read');
  }
  const chats: unknown[] = [];
  for (const name of Object.keys(files).sort()) {
    let data: unknown;
    try {
      data = JSON.parse(Buffer.from(files[name]).toString('utf8'));
    } catch {
      throw new Error(`${name} in the zip is not JSON`);
    }
    chats.push(...(Array.isArray(data) ? data : [data]));
  }
  if (!chats.length) throw new Error('The zip holds no chats (.json files): import the zip of all chats this app exports');
  return parseData(chats, limits);
}

/** Reads an export's JSON text; throws an Error whose message says what is wrong with it. */
export function parseImport(json: string, limits: { maxChats: number; maxMessages: number }): ParsedImport {
  let data: unknown;
  try {
    data = JSON.parse(json);
  } catch {
    throw new Error('The file is not JSON: export your chats as JSON (ChatGPT: conversations.json)');
  }
  return parseData(data, limits);
}

function parseData(data: unknown, limits: { maxChats: number; maxMessages: number }): ParsedImport {
  const source = detectSource(data);
  if (!source) throw new Error('This is not a ChatGPT, Open WebUI, LibreChat or Lagoon export');
  const list = (Array.isArray(data) ? data : [data]) as Record<string, any>[];
  const count = { dropped: 0 };
  const chats: ImportedChat[] = [];
  const skipped: ParsedImport['skipped'] = [];
  const read = { chatgpt: chatgptChat, 'open-webui': openWebUiChat, librechat: libreChat, lagoon: lagoonChat }[source];
  for (const c of list) {
    const title = titleOf(c?.title ?? c?.chat?.title);
    if (chats.length >= limits.maxChats) {
      skipped.push({ title, reason: `only ${limits.maxChats} chats are taken from one file` });
      continue;
    }
    const chat = read(c, count);
    if (!chat.messages.length) skipped.push({ title, reason: 'no messages with text' });
    else if (chat.messages.length > limits.maxMessages) skipped.push({ title, reason: `more than ${limits.maxMessages} messages` });
    else chats.push(chat);
  }
  return { source, chats, skipped, dropped: count.dropped };
}
