// Sending, editing, regenerating and stopping. A new chat is created on its first send (POST /conversations with
// the model and settings chosen so far), then the page moves to /c/<id>; the answer's stream is module-level
// (stream-manager), so it carries on through that navigation. Failures become a transcript row with a retry.
import { useQueryClient } from '@tanstack/react-query';
import { useRouter } from 'next/navigation';
import { useCallback, useRef, useState } from 'react';
import { AppApiError, call, qk } from '@/components/api/client';
import type { AppConversationWithMessages, AppMessage, ChatSettings, TemporaryTurnRequest } from '@/lib/wire.ts';
import { mergeConversation, seedConversation, upsertMessages } from './chat-cache.ts';
import { getLive, updateLive } from './live-store.ts';
import { callTurn } from './sse.ts';
import { finishAnswer, followStream } from './stream-manager.ts';
import type { TranscriptRow } from './transcript-rows.ts';
import { keepTemporaryFiles, temporaryFiles } from './temporary-files.ts';
import { toUploads, type DraftAttachment } from './use-attachments.ts';

type Failure = Extract<TranscriptRow, { kind: 'failure' }>;
type Pending = Extract<TranscriptRow, { kind: 'pending' }>;

export interface ControllerOptions {
  conversationId: string | null;
  /** A temporary chat (conversationId is its browser-side id): turns go to POST /chat/temporary, nothing is stored. */
  temporary?: boolean;
  /** What a new chat is created with. */
  modelId: string | null;
  characterSlug: string | null;
  settings: ChatSettings;
  setLeaf: (id: string) => void;
  /** Called when the reader did something that should bring the end of the chat into view. */
  onFollow: () => void;
}

function asFailure(e: unknown, retry?: () => void): Failure {
  // No message of its own: the banner words it (chat.error's generic line) in the user's language.
  const err = e instanceof AppApiError ? e : new AppApiError(0, { error: (e as Error)?.message || '' });
  return {
    kind: 'failure',
    key: 'failure',
    error: { status: err.status, code: err.code, message: err.message, retryAfter: err.retryAfter },
    since: Date.now(),
    retry,
  };
}

/**
 * A temporary chat's branch up to `leafId` (oldest first), as the server is sent it: it holds the chat alone, so the
 * user messages' files go again too (temporary-files.ts).
 */
function temporaryHistory(qc: ReturnType<typeof useQueryClient>, chatId: string, leafId: string | null): TemporaryTurnRequest['history'] {
  const all = qc.getQueryData<AppConversationWithMessages>(qk.conversation(chatId))?.messages ?? [];
  const byId = new Map(all.map((m) => [m.id, m]));
  const out: TemporaryTurnRequest['history'] = [];
  for (let m = leafId ? byId.get(leafId) : undefined; m; m = m.parentId ? byId.get(m.parentId) : undefined) {
    if (m.role === 'system') continue;
    const files = m.role === 'user' ? temporaryFiles(chatId, m.id) : [];
    out.unshift({ id: m.id, role: m.role, content: m.content, ...(files.length ? { attachments: files } : {}) });
  }
  return out;
}

/** Settings a temporary turn takes: its tools too, but no knowledge or memory (nothing of the account's is read). */
const temporarySettings = ({ systemPrompt, temperature, webSearch, citations, includeServiceSystemPrompt, tools }: ChatSettings) => ({
  ...(systemPrompt !== undefined ? { systemPrompt } : {}),
  ...(temperature !== undefined ? { temperature } : {}),
  ...(webSearch !== undefined ? { webSearch } : {}),
  ...(citations !== undefined ? { citations } : {}),
  ...(includeServiceSystemPrompt !== undefined ? { includeServiceSystemPrompt } : {}),
  ...(tools?.length ? { tools } : {}),
});

export function useChatController(options: ControllerOptions) {
  const qc = useQueryClient();
  const router = useRouter();
  const opts = useRef(options);
  opts.current = options;
  const created = useRef<string | null>(null);
  const [pending, setPending] = useState<Pending | null>(null);
  const [failure, setFailure] = useState<Failure | null>(null);

  const send = useCallback(
    async (content: string, files: DraftAttachment[], parentId: string | null, showPending = true, attachmentsFrom?: string): Promise<boolean> => {
      const o = opts.current;
      setFailure(null);
      if (showPending) {
        const attachments = files.map(({ id, name, size, kind, previewUrl }) => ({ id, name, size, kind, previewUrl }));
        setPending({ kind: 'pending', key: 'pending', content, attachments, failed: false });
        o.onFollow();
      }
      try {
        if (o.temporary && o.conversationId) {
          const id = o.conversationId;
          const history = temporaryHistory(qc, id, parentId);
          // An edit keeps the original's files, which only this page holds.
          const uploads = attachmentsFrom ? temporaryFiles(id, attachmentsFrom) : await toUploads(files);
          const stream = await callTurn('POST /chat/temporary', {
            body: {
              chatId: id,
              history,
              content,
              ...(uploads.length ? { attachments: uploads } : {}),
              ...(o.modelId ? { modelId: o.modelId } : {}),
              settings: temporarySettings(o.settings),
            },
          });
          const res = stream.turn;
          if (res.user) keepTemporaryFiles(id, res.user.id, uploads);
          upsertMessages(qc, id, res.user ? [res.user, res.assistant] : [res.assistant]);
          opts.current.setLeaf(res.assistant.id);
          followStream(qc, id, res.assistant.id, stream);
          setPending(null);
          return true;
        }
        const uploads = await toUploads(files);
        let id = o.conversationId ?? created.current;
        if (!id) {
          const body = { modelId: o.modelId ?? undefined, characterSlug: o.characterSlug ?? undefined, settings: { ...o.settings } };
          const conv = await call('POST /conversations', { body });
          seedConversation(qc, conv, []);
          id = created.current = conv.id;
        }
        // One request: the turn, then its answer's events on the same response.
        const stream = await callTurn('POST /conversations/:id/messages', {
          params: { id },
          body: { parentId, content, ...(uploads.length ? { attachments: uploads } : {}), ...(attachmentsFrom ? { attachmentsFrom } : {}) },
        });
        const res = stream.turn;
        upsertMessages(qc, id, [res.user, res.assistant]);
        mergeConversation(qc, res.conversation);
        opts.current.setLeaf(res.assistant.id);
        followStream(qc, id, res.assistant.id, stream);
        setPending(null);
        if (!opts.current.conversationId) router.replace(`/c/${id}`);
        return true;
      } catch (e) {
        setPending((p) => p && { ...p, failed: true });
        setFailure(asFailure(e, () => void send(content, files, parentId, showPending, attachmentsFrom)));
        return false;
      }
    },
    [qc, router],
  );

  const regenerate = useCallback(
    async (assistantId: string) => {
      const o = opts.current;
      if (!o.conversationId) return;
      setFailure(null);
      try {
        if (o.temporary) {
          const id = o.conversationId;
          const parent = qc.getQueryData<AppConversationWithMessages>(qk.conversation(id))?.messages.find((m) => m.id === assistantId)?.parentId ?? null;
          const stream = await callTurn('POST /chat/temporary', {
            body: {
              chatId: id,
              history: temporaryHistory(qc, id, parent),
              ...(o.modelId ? { modelId: o.modelId } : {}),
              settings: temporarySettings(o.settings),
            },
          });
          const res = stream.turn;
          upsertMessages(qc, id, [res.assistant]);
          o.setLeaf(res.assistant.id);
          followStream(qc, id, res.assistant.id, stream);
          o.onFollow();
          return;
        }
        const body = o.modelId ? { modelId: o.modelId } : {};
        const stream = await callTurn('POST /messages/:id/regenerate', { params: { id: assistantId }, body });
        const { assistant } = stream.turn;
        upsertMessages(qc, o.conversationId, [assistant]);
        o.setLeaf(assistant.id);
        followStream(qc, o.conversationId, assistant.id, stream);
        o.onFollow();
      } catch (e) {
        setFailure(asFailure(e, () => void regenerate(assistantId)));
      }
    },
    [qc],
  );

  const stop = useCallback(
    async (assistantId: string) => {
      const live = getLive(assistantId);
      if (live?.stopping) return;
      if (live) updateLive(assistantId, (d) => void (d.stopping = true), true);
      try {
        const { message } = await call('POST /messages/:id/stop', { params: { id: assistantId } });
        finishAnswer(qc, message);
      } catch (e) {
        if (getLive(assistantId)) updateLive(assistantId, (d) => void (d.stopping = false), true);
        // Already finished (the stream's `done` brings the final state); anything else is worth saying.
        if (!(e instanceof AppApiError && (e.status === 404 || e.status === 409))) setFailure(asFailure(e, () => void stop(assistantId)));
      }
    },
    [qc],
  );

  // The edited version keeps the original's files (the server copies them from the stored message).
  const edit = useCallback(
    (message: AppMessage, content: string) => send(content, [], message.parentId, false, message.attachments.length ? message.id : undefined),
    [send],
  );

  const update = useCallback(
    async (patch: { modelId?: string; settings?: Record<string, unknown> }) => {
      const id = opts.current.conversationId;
      if (!id) return;
      try {
        mergeConversation(qc, await call('PATCH /conversations/:id', { params: { id }, body: patch }));
      } catch (e) {
        setFailure(asFailure(e));
      }
    },
    [qc],
  );

  return { pending, failure, send, regenerate, stop, edit, update, dismissFailure: () => setFailure(null) };
}
