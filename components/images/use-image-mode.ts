// The chat's image mode: whether it is on, its settings, and the turns it sends. A generation goes to
// POST /images/generate (a new chat is created first, as a first message does, then the page moves to /c/<id>); its
// answer holds the first image, and a message still being made is followed like any answer (the chat's stream, stop
// and reload), its further images polled by the message itself. Vary, upscale and background removal put their image
// after the branch's last message. While a request runs its turn shows as pending; a failure is a row with a retry.
import { useQueryClient } from '@tanstack/react-query';
import { useRouter } from 'next/navigation';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { useTranslations } from 'use-intl';
import { AppApiError, call } from '@/components/api/client';
import { mergeConversation, seedConversation, upsertMessages } from '@/components/chat/chat-cache.ts';
import { followStream } from '@/components/chat/stream-manager.ts';
import type { TranscriptRow } from '@/components/chat/transcript-rows.ts';
import type { ChatSettings } from '@/lib/wire.ts';
import type { AppImage, ImageTurnResponse } from '@/lib/images/wire.ts';
import { generatorsOf, type ImageChoices, loadChoices, modelFor, NO_CHOICES, requestOf, saveChoices, seedOf } from './choices.ts';
import { IMAGE_JOB_ROUTE, type ImageActions, type ImageJob } from './image-actions.ts';
import { addImages, useImageModels } from './queries.ts';

type Failure = Extract<TranscriptRow, { kind: 'failure' }>;
type Pending = Extract<TranscriptRow, { kind: 'pending' }>;

export interface ImageModeOptions {
  conversationId: string | null;
  /** What a new chat is created with (the chat's own model and settings). */
  chatModelId: string | null;
  characterSlug: string | null;
  settings: ChatSettings;
  /** The branch's last message: new turns follow it. */
  leafId: string | null;
  /** An answer of this chat is being made: no new turn meanwhile. */
  blocked: boolean;
  setLeaf: (id: string) => void;
  onFollow: () => void;
}

// The request as the server stores it in the chat (lib/images/app-routes.ts writes the same words), shown until it answers.
const JOB_TEXT: Record<ImageJob, string> = { vary: 'Vary', upscale: 'Upscale 2×', 'remove-background': 'Remove the background' };

function asFailure(e: unknown, fallback: string, retry?: () => void): Failure {
  const err = e instanceof AppApiError ? e : new AppApiError(0, { error: (e as Error)?.message || fallback });
  return {
    kind: 'failure',
    key: 'image-failure',
    error: { status: err.status, code: err.code, message: err.message, retryAfter: err.retryAfter },
    since: Date.now(),
    retry,
  };
}

export function useImageMode(options: ImageModeOptions) {
  const t = useTranslations('images');
  const tc = useTranslations('common');
  const qc = useQueryClient();
  const router = useRouter();
  const opts = useRef(options);
  opts.current = options;
  const created = useRef<string | null>(null);
  const [choices, setChoices] = useState<ImageChoices>(NO_CHOICES);
  const [pending, setPending] = useState<Pending | null>(null);
  const [failure, setFailure] = useState<Failure | null>(null);
  const [running, setRunning] = useState<ImageActions['running']>(null);
  const report = useImageModels().data;
  const models = generatorsOf(report?.models);
  const model = modelFor(models, choices);
  const styles = report?.styles ?? [];

  useEffect(() => setChoices(loadChoices()), []);
  const enabled = choices.on === true;
  const change = useCallback((patch: Partial<ImageChoices>) => {
    setChoices((c) => {
      const next = { ...c, ...patch };
      saveChoices(next);
      return next;
    });
  }, []);

  /** The chat the turn goes into, created now for a new chat. */
  const chatId = useCallback(async (): Promise<string> => {
    const o = opts.current;
    const known = o.conversationId ?? created.current;
    if (known) return known;
    const body = { modelId: o.chatModelId ?? undefined, characterSlug: o.characterSlug ?? undefined, settings: { ...o.settings } };
    const conv = await call('POST /conversations', { body });
    seedConversation(qc, conv, []);
    created.current = conv.id;
    return conv.id;
  }, [qc]);

  const apply = useCallback(
    (id: string, res: ImageTurnResponse) => {
      addImages(qc, res.images);
      if (res.user && res.assistant) upsertMessages(qc, id, [res.user, res.assistant]);
      if (res.conversation) mergeConversation(qc, res.conversation);
      if (res.assistant) {
        opts.current.setLeaf(res.assistant.id);
        if (res.assistant.status === 'streaming') followStream(qc, id, res.assistant.id);
      }
      if (!opts.current.conversationId) router.replace(`/c/${id}`);
    },
    [qc, router],
  );

  /** One turn: shown as pending while it runs; a failure becomes a row with a retry. */
  const turn = useCallback(
    async (text: string, send: (conversationId: string, parentId: string | null) => Promise<ImageTurnResponse>, retry: () => void): Promise<boolean> => {
      setFailure(null);
      setPending({ kind: 'pending', key: 'image-pending', content: text, attachments: [], failed: false });
      opts.current.onFollow();
      try {
        const parentId = opts.current.leafId;
        const id = await chatId();
        apply(id, await send(id, parentId));
        setPending(null);
        return true;
      } catch (e) {
        setPending((p) => p && { ...p, failed: true });
        setFailure(asFailure(e, tc('somethingWrong'), retry));
        return false;
      }
    },
    [apply, chatId, tc],
  );

  const generate = useCallback(
    async (prompt: string): Promise<boolean> => {
      if (!model) {
        setFailure(asFailure(new Error(t('noModel')), tc('somethingWrong')));
        return false;
      }
      if (seedOf(choices.seed) === null) {
        setFailure(asFailure(new Error(t('seedInvalid')), tc('somethingWrong')));
        return false;
      }
      const shape = requestOf(model, choices, styles);
      const again = () => void generate(prompt);
      return turn(prompt, (conversationId, parentId) => call('POST /images/generate', { body: { ...shape, conversationId, parentId, prompt } }), again);
    },
    [choices, model, styles, turn, t, tc],
  );

  const run = useCallback(
    (job: ImageJob, image: AppImage) => {
      setRunning({ id: image.id, job });
      const again = () => run(job, image);
      const text = job === 'vary' ? `Vary: ${image.prompt}` : JOB_TEXT[job];
      void turn(
        text,
        (conversationId, parentId) => call(IMAGE_JOB_ROUTE[job], { params: { id: image.id }, body: parentId === null ? {} : { conversationId, parentId } }),
        again,
      ).finally(() => setRunning(null));
    },
    [turn],
  );

  const actions = useMemo<ImageActions>(() => ({ run, running, blocked: options.blocked || pending !== null }), [run, running, options.blocked, pending]);

  return {
    enabled,
    toggle: () => change({ on: !enabled }),
    available: report ? !report.unavailable && models.length > 0 : false,
    unavailable: report?.unavailable ?? null,
    models,
    model,
    styles,
    choices,
    change,
    generate,
    pending,
    failure,
    actions,
  };
}
