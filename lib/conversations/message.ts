// Stored messages → what the browser receives. The one place that decides what leaves the server about a message:
// attachments lose their bytes (documents entirely; images keep a data: URL for the thumbnail), usage and errors
// are reduced to the wire's fields whatever shape an older row holds.
import type { Message, MessageError } from './conversations.ts';
import type { AppAttachment, AppCitation, AppError, AppMessage, AppToolStep, AppUsage } from '../wire.ts';

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

/** One stored attachment ({id,name,type,size,kind,dataUrl}) as the browser sees it, or null when unusable. */
export function toAppAttachment(a: Record<string, unknown>, index = 0): AppAttachment | null {
  const name = str(a.name) ?? str(a.filename);
  const type = str(a.type) ?? '';
  if (!name) return null;
  const kind: AppAttachment['kind'] = a.kind === 'image' || (a.kind === undefined && type.startsWith('image/')) ? 'image' : 'document';
  const out: AppAttachment = { id: str(a.id) ?? `attachment-${index}`, name, type, size: num(a.size), kind };
  const dataUrl = str(a.dataUrl);
  // Only an image's own data: URL goes back, and only when it declares an image type (never a document's bytes).
  if (kind === 'image' && dataUrl && /^data:image\/(png|jpeg|webp|gif);base64,/i.test(dataUrl)) out.previewUrl = dataUrl;
  return out;
}

/** Stored usage (AppUsage written by the generation, or an OpenAI-style usage record) → AppUsage. */
export function toAppUsage(u: Record<string, unknown> | null): AppUsage | null {
  if (!u) return null;
  const promptTokens = num(u.promptTokens ?? u.prompt_tokens);
  const completionTokens = num(u.completionTokens ?? u.completion_tokens);
  const cost = (u.cost ?? {}) as Record<string, unknown>;
  return {
    promptTokens,
    completionTokens,
    totalTokens: num(u.totalTokens ?? u.total_tokens) || promptTokens + completionTokens,
    costUsd: num(u.costUsd ?? cost.usd),
    costDiem: num(u.costDiem ?? cost.diem),
  };
}

export function toAppError(e: MessageError | null): AppError | null {
  if (!e) return null;
  const out: AppError = { code: e.code, status: e.status, message: e.message };
  if (e.retryAfter !== undefined) out.retryAfter = e.retryAfter;
  return out;
}

const toAppCitation = (c: Message['citations'][number]): AppCitation => {
  const out: AppCitation = { url: c.url };
  if (c.title !== undefined) out.title = c.title;
  if (c.date !== undefined) out.date = c.date;
  if (typeof c.passage === 'string') out.passage = c.passage;
  return out;
};

const toAppToolStep = (s: NonNullable<Message['toolSteps']>[number]): AppToolStep => {
  const out: AppToolStep = {
    id: s.id,
    round: s.round,
    name: s.name,
    server: s.server,
    arguments: s.arguments,
    status: s.status,
    result: s.result,
    startedAt: s.startedAt,
    ms: s.ms,
  };
  if (s.truncated) out.truncated = true;
  return out;
};

export function toAppMessage(m: Message): AppMessage {
  const out: AppMessage = {
    id: m.id,
    conversationId: m.conversationId,
    parentId: m.parentId,
    role: m.role,
    content: m.content,
    reasoning: m.reasoning,
    attachments: m.attachments.map((a, i) => toAppAttachment(a, i)).filter((a): a is AppAttachment => a !== null),
    citations: m.citations.map(toAppCitation),
    modelId: m.modelId,
    status: m.status,
    usage: toAppUsage(m.usage),
    error: toAppError(m.error),
    createdAt: m.createdAt,
    ...(m.toolSteps?.length ? { toolSteps: m.toolSteps.map(toAppToolStep) } : {}),
  };
  if (m.memories.length) out.memories = m.memories.map((u) => ({ id: u.id, content: u.content }));
  return out;
}
