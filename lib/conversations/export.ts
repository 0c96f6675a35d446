// Export of one conversation path (from userConversations(...).withPath) as Markdown or as a stable JSON document.
import type { ConversationWithMessages, Message } from './types.ts';

const ROLE_HEADING: Record<Message['role'], string> = { user: 'User', assistant: 'Assistant', system: 'System' };
const STATUS_NOTE: Partial<Record<Message['status'], string>> = {
  streaming: '_(still generating when exported)_',
  stopped: '_(generation stopped)_',
  error: '_(generation failed)_',
};

const iso = (ms: number) => new Date(ms).toISOString();
const escapeLinkText = (s: string) =>
  s
    .replace(/[\\[\]]/g, (c) => `\\${c}`)
    .replace(/\s+/g, ' ')
    .trim();
const escapeUrl = (s: string) => s.replace(/[\s()<>]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`);
const escapeHtml = (s: string) => s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c] as string);

export function exportMarkdown(c: ConversationWithMessages): string {
  const out: string[] = [`# ${c.title.replace(/\s+/g, ' ').trim()}`, ''];
  const meta = [`Exported from Lagoon`, `created ${iso(c.createdAt)}`];
  if (c.modelId) meta.push(`model ${c.modelId}`);
  out.push(`_${meta.join(' · ')}_`, '');
  for (const m of c.messages) {
    out.push(`## ${ROLE_HEADING[m.role]}${m.role === 'assistant' && m.modelId ? ` (${m.modelId})` : ''}`, '');
    if (m.reasoning?.trim()) {
      out.push('<details>', '<summary>Reasoning</summary>', '', m.reasoning.trim(), '', '</details>', '');
    }
    for (const s of m.toolSteps ?? []) {
      // Tool text is untrusted: fenced, with a fence longer than any run of backticks in it.
      const fence = (t: string) => '`'.repeat(Math.max(3, ...[...t.matchAll(/`+/g)].map((x) => x[0].length + 1)));
      const where = s.server ? ` on ${s.server}` : '';
      out.push('<details>', `<summary>Tool call: ${escapeHtml(s.name)}${escapeHtml(where)} (${s.status})</summary>`, '');
      if (s.arguments) out.push(fence(s.arguments), s.arguments, fence(s.arguments), '');
      out.push(fence(s.result), s.result, fence(s.result), '', '</details>', '');
    }
    if (m.content.trim()) out.push(m.content.trim(), '');
    const note = STATUS_NOTE[m.status];
    if (note) out.push(note, '');
    const names = m.attachments.map((a) => (typeof a.name === 'string' ? a.name : typeof a.filename === 'string' ? a.filename : null)).filter((n) => n);
    if (names.length) out.push(`Attachments: ${names.map((n) => `\`${String(n).replace(/`/g, "'")}\``).join(', ')}`, '');
    if (m.citations.length) {
      out.push('**Sources**', '');
      m.citations.forEach((s, i) => {
        const label = escapeLinkText(s.title || s.url);
        out.push(`${i + 1}. [${label}](${escapeUrl(s.url)})${s.date ? ` — ${escapeHtml(String(s.date))}` : ''}`);
      });
      out.push('');
    }
  }
  return `${out.join('\n').trimEnd()}\n`;
}

export interface ConversationExport {
  id: string;
  title: string;
  createdAt: string;
  model: string | null;
  messages: {
    id: string;
    parentId: string | null;
    role: Message['role'];
    content: string;
    reasoning: string | null;
    model: string | null;
    status: Message['status'];
    createdAt: string;
    attachments: Message['attachments'];
    citations: Message['citations'];
    usage: Message['usage'];
    /** The server-side tool calls of an answer (absent: none). */
    toolSteps?: NonNullable<Message['toolSteps']>;
  }[];
}

// Attachments keep their file bytes (a data: URL) so an answer can be regenerated; an export lists them by name and
// size only: the file is the user's own upload, and megabytes of base64 would drown the conversation.
const withoutBytes = (a: Message['attachments'][number]): Message['attachments'][number] => {
  const { dataUrl: _bytes, ...rest } = a;
  return rest;
};

/** The JSON export object, keys in a fixed order. */
export function exportObject(c: ConversationWithMessages): ConversationExport {
  return {
    id: c.id,
    title: c.title,
    createdAt: iso(c.createdAt),
    model: c.modelId,
    messages: c.messages.map((m) => ({
      id: m.id,
      parentId: m.parentId,
      role: m.role,
      content: m.content,
      reasoning: m.reasoning,
      model: m.modelId,
      status: m.status,
      createdAt: iso(m.createdAt),
      attachments: m.attachments.map(withoutBytes),
      citations: m.citations,
      usage: m.usage,
      ...(m.toolSteps?.length ? { toolSteps: m.toolSteps } : {}),
    })),
  };
}

/** The JSON export document: two-space indented, newline-terminated. */
export function exportJson(c: ConversationWithMessages): string {
  return `${JSON.stringify(exportObject(c), null, 2)}\n`;
}
