'use client';
// The chat: header (model, character, settings), the virtualised transcript of the branch on screen, the composer.
// data-testid: chat-view, message (data-role, data-status), composer-input, send-button, stop-button,
// regenerate-button, edit-button, branch-prev, branch-next, branch-label, model-picker, chat-settings,
// attach-button, attachment-chip, reasoning, sources-panel, citation, error-banner, usage, copy-button,
// chat-character.
import { useTranslations } from 'use-intl';
import { useQueryClient } from '@tanstack/react-query';
import { useDeferredValue, useEffect, useMemo, useRef, useState } from 'react';
import type { AppConversationWithMessages, ChatSettings } from '@/lib/wire.ts';
import { qk } from '@/components/api/client';
import { Spinner } from '@/components/ui/spinner.tsx';
import { ArchivedNotice } from './archived-notice.tsx';
import { ChatActionsContext, ModelNamesContext, type ChatActions } from './chat-context.ts';
import { ChatHeader } from './chat-header.tsx';
import { ChatMissing } from './chat-missing.tsx';
import { useChatCharacter, useConversation, useLimits, useModels, useWebSearchAvailability } from './chat-queries.ts';
import { useChatOptions } from './use-chat-options.ts';
import { Composer } from './composer.tsx';
import { DropOverlay } from './drop-overlay.tsx';
import { EmptyState } from './empty-state.tsx';
import { GenerationStatus } from './generation-status.tsx';
import { useLiveStatus } from './live-store.ts';
import { followStream } from './stream-manager.ts';
import { openModelPicker } from './open-model-picker.ts';
import { Transcript } from './transcript.tsx';
import type { TranscriptRow } from './transcript-rows.ts';
import { useAttachments } from './use-attachments.ts';
import { useBranch } from './use-branch.ts';
import { useChatController } from './use-chat-controller.ts';
import { useFileDrop } from './use-file-drop.ts';
import { dropTemporaryFiles } from './temporary-files.ts';
import { useStopOnEscape } from './use-stop-on-escape.ts';
import { ImageActionsContext } from '@/components/images/image-actions.ts';
import { formatWait, useCountdown } from '@/components/ui/use-countdown.ts';
import { ImageModeToggle } from '@/components/images/image-mode-toggle.tsx';
import { ImageOptions } from '@/components/images/image-options.tsx';
import { useImageMode } from '@/components/images/use-image-mode.ts';

interface Props {
  conversationId: string | null;
  characterSlug?: string | null;
}

/** Settings as a PATCH: every field present, null for "back to the default". */
const asPatch = (s: ChatSettings) =>
  Object.fromEntries(
    (['systemPrompt', 'temperature', 'webSearch', 'citations', 'includeServiceSystemPrompt', 'memory', 'tools', 'knowledge'] as const).map((k) => [
      k,
      s[k] ?? null,
    ]),
  );

export function ChatView({ conversationId, characterSlug = null }: Props) {
  const t = useTranslations('chat.view');
  const qc = useQueryClient();
  // A temporary chat (a new chat with its switch on): its id is the browser's, its messages live in the query cache
  // only, and it is dropped when this view goes (a reload or leaving the page).
  const [temporaryId, setTemporaryId] = useState<string | null>(null);
  const temporary = conversationId === null && temporaryId !== null;
  const activeId = conversationId ?? temporaryId;
  useEffect(() => {
    if (!temporaryId) return;
    return () => {
      qc.removeQueries({ queryKey: qk.conversation(temporaryId) });
      dropTemporaryFiles(temporaryId);
    };
  }, [qc, temporaryId]);
  const query = useConversation(activeId);
  const conv = query.data;
  const models = useModels().data;
  const webSearch = useWebSearchAvailability().data;
  const limits = useLimits().data;
  const slug = conv ? conv.characterSlug : conversationId ? null : characterSlug;
  const character = useChatCharacter(slug).data ?? null;

  const { modelList, modelId, model, modelNames, settings, setDraftModel, setDraftSettings } = useChatOptions(temporary ? undefined : conv, models, character);

  const branch = useBranch(conversationId, conv?.messages);
  const toggleTemporary = () => {
    if (temporaryId) {
      setTemporaryId(null);
      branch.setLeafId(null);
      return;
    }
    const id = `temporary-${crypto.randomUUID()}`;
    const at = Date.now();
    qc.setQueryData<AppConversationWithMessages>(qk.conversation(id), {
      id,
      title: t('temporaryTitle'),
      modelId: null,
      characterSlug: null,
      settings: {},
      createdAt: at,
      updatedAt: at,
      folderId: null,
      pinned: false,
      archived: false,
      messages: [],
    });
    setTemporaryId(id);
  };
  const last = branch.rows.at(-1)?.message ?? null;
  const lastAnswer = last?.role === 'assistant' ? last : null;
  const live = useLiveStatus(lastAnswer?.id);
  const generating = !!lastAnswer && (live === 'streaming' || live === 'stopping' || (live === undefined && lastAnswer.status === 'streaming'));

  // Reattach to answers still being generated (a reload, or a chat opened mid-answer).
  useEffect(() => {
    if (!conversationId || !conv) return;
    for (const m of conv.messages) if (m.status === 'streaming') followStream(qc, conversationId, m.id);
  }, [qc, conversationId, conv]);

  const [followToken, setFollowToken] = useState(0);
  const controller = useChatController({
    conversationId: activeId,
    temporary,
    modelId,
    characterSlug: slug,
    settings,
    setLeaf: branch.setLeafId,
    onFollow: () => setFollowToken((t) => t + 1),
  });
  // The image mode: the box's text becomes an image prompt; its turns go into this chat too.
  const image = useImageMode({
    conversationId,
    chatModelId: modelId,
    characterSlug: slug,
    settings,
    leafId: last?.id ?? null,
    blocked: generating,
    setLeaf: branch.setLeafId,
    onFollow: () => setFollowToken((t) => t + 1),
  });
  const attachments = useAttachments(limits, !!model?.capabilities.vision);
  // The image mode makes pictures from words: it takes no files (and no model is asked to read them). A temporary
  // chat has no image mode; its files are read for each turn and kept in this page only (temporary-files.ts).
  const imageMode = image.enabled && !temporary;
  const attachBlocked = imageMode ? t('imageNoFiles') : undefined;
  const drop = useFileDrop(attachBlocked ? () => {} : attachments.add);
  const stop = () => lastAnswer && controller.stop(lastAnswer.id);
  useStopOnEscape(generating, stop);
  const sendMessage = (text: string) => {
    if (imageMode) return image.generate(text);
    const files = attachments.items;
    attachments.clear();
    return controller.send(text, files, last?.id ?? null);
  };

  const ctl = useRef(controller);
  ctl.current = controller;
  const actions = useMemo<ChatActions>(
    () => ({
      regenerate: (id) => void ctl.current.regenerate(id),
      edit: (m, text) => ctl.current.edit(m, text),
      stop: (id) => void ctl.current.stop(id),
      switchSibling: branch.switchSibling,
    }),
    [branch.switchSibling],
  );

  const { pending, failure } = controller;
  const { pending: imagePending, failure: imageFailure } = image;
  const rows = useMemo<TranscriptRow[]>(
    () => [
      ...branch.rows.map((r) => ({ kind: 'message' as const, key: r.message.id, ...r })),
      ...(pending ? [pending] : []),
      ...(failure ? [failure] : []),
      ...(imagePending ? [imagePending] : []),
      ...(imageFailure ? [imageFailure] : []),
    ],
    [branch.rows, pending, failure, imagePending, imageFailure],
  );
  // The transcript renders at transition priority: opening a long chat mounts its rows in slices instead of one
  // long task (React drops a stale version when a newer one arrives).
  const shownRows = useDeferredValue(rows);
  const loading = (conversationId !== null && query.isPending) || (shownRows.length === 0 && rows.length > 0);

  useEffect(() => {
    document.title = temporary ? t('docTemporary') : conv?.title ? t('docTitle', { title: conv.title }) : t('docNew');
  }, [conv?.title, temporary, t]);

  const hasImages = attachments.items.some((a) => a.kind === 'image');
  // A chat whose model the operator has since disabled or removed: said before anything is sent (the send could only
  // fail), with the picker opened on the models that are offered.
  const retired = !!conv?.modelId && !!models?.length && !model;
  useEffect(() => {
    if (retired) openModelPicker();
  }, [retired]);
  // While this model's rate limit counts down (the last answer or send was refused with 429), a send could only be
  // refused again: the composer waits with it, and another model lifts the wait.
  const limitedUntil =
    failure?.error.status === 429 && failure.error.retryAfter
      ? failure.since + failure.error.retryAfter * 1000
      : lastAnswer?.status === 'error' && lastAnswer.error?.status === 429 && lastAnswer.error.retryAfter && lastAnswer.modelId === modelId
        ? lastAnswer.createdAt + lastAnswer.error.retryAfter * 1000
        : null;
  const limitedFor = useCountdown(limitedUntil);
  const blocked = retired
    ? t('retired', { model: conv?.modelId ?? '' })
    : limitedFor > 0
      ? t('rateLimited', { wait: formatWait(limitedFor) })
      : hasImages && model && !model.capabilities.vision
        ? t('noVision', { model: model.name })
        : undefined;

  if (conversationId && query.isError) return <ChatMissing notFound={(query.error as { status?: number }).status === 404} retry={() => void query.refetch()} />;
  return (
    <section data-testid="chat-view" aria-label={t('chat')} className="relative flex min-h-0 flex-1 flex-col" {...drop.handlers}>
      <ChatHeader
        title={conv?.title ?? null}
        models={modelList}
        modelId={modelId}
        onModelChange={(id) => (conversationId ? void controller.update({ modelId: id }) : setDraftModel(id))}
        character={character}
        settings={settings}
        onSettingsSave={(s) => (conversationId ? void controller.update({ settings: asPatch(s) }) : setDraftSettings(s))}
        webSearch={webSearch}
        conversationId={conversationId}
        leafId={last?.id ?? null}
        temporary={conversationId === null && (temporary || branch.rows.length === 0) ? { on: temporary, toggle: toggleTemporary } : undefined}
      />
      {temporary && (
        <p data-testid="temporary-notice" role="status" className="shrink-0 border-b border-border bg-muted px-4 py-2 text-center text-sm">
          <strong>{t('temporaryStrong')}</strong>
          {t('temporaryBody')}
        </p>
      )}
      <div className="relative min-h-0 flex-1">
        {loading ? (
          <div className="flex h-full items-center justify-center text-muted-foreground">
            <Spinner label={t('loading')} />
          </div>
        ) : shownRows.length === 0 ? (
          <EmptyState character={character} model={model} />
        ) : (
          <ChatActionsContext.Provider value={actions}>
            <ModelNamesContext.Provider value={modelNames}>
              <ImageActionsContext.Provider value={image.actions}>
                <Transcript rows={shownRows} busy={generating} followToken={followToken} />
              </ImageActionsContext.Provider>
            </ModelNamesContext.Provider>
          </ChatActionsContext.Provider>
        )}
      </div>
      {imageMode && image.model && (
        <div className="shrink-0 px-3 sm:px-6">
          <ImageOptions models={image.models} styles={image.styles} model={image.model} choices={image.choices} onChange={image.change} />
        </div>
      )}
      {conversationId && conv?.archived && <ArchivedNotice id={conversationId} />}
      <Composer
        attachments={attachments}
        limits={limits}
        generating={generating}
        stopping={live === 'stopping'}
        blocked={imageMode ? undefined : blocked}
        attachBlocked={attachBlocked}
        onSend={sendMessage}
        onStop={stop}
        tools={temporary ? undefined : <ImageModeToggle on={image.enabled} available={image.available} why={image.unavailable} onToggle={image.toggle} />}
        placeholder={temporary ? t('placeholderTemporary') : imageMode ? t('placeholderImage') : undefined}
      />
      <GenerationStatus generating={generating} outcome={lastAnswer?.status} />
      {drop.dragging && <DropOverlay limits={limits} />}
    </section>
  );
}
