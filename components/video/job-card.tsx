'use client';
// One job of the list: what was asked, then its state — waiting, a progress bar while it runs, the player with a
// download once it is done, or why it failed (nothing charged). Delete removes the clip; on a job still under way (Stop)
// it cancels it and releases its hold.
// data-testid: video-job (data-id, data-status), video-progress (data-progress), video-remaining, video-player,
// video-download, video-failure, video-delete.
import { useTranslations } from 'use-intl';
import { useState } from 'react';
import { Alert } from '@/components/ui/alert.tsx';
import { Button, buttonClasses } from '@/components/ui/button.tsx';
import { ConfirmDialog } from '@/components/ui/confirm-dialog.tsx';
import { useToast } from '@/components/ui/toast.tsx';
import { isActive, jobProgress, remaining } from '@/components/video/progress.ts';
import { useDeleteVideo } from '@/components/video/queries.ts';
import type { AppVideoJob } from '@/lib/video/wire.ts';
import { useFormat } from '@/components/i18n/format.ts';

function ProgressBar({ job, sinceFetchMs }: { job: AppVideoJob; sinceFetchMs: number }) {
  const t = useTranslations('video');
  const p = jobProgress(job, sinceFetchMs);
  const percent = Math.round(p.fraction * 100);
  const note = job.status === 'queued' ? t('waitingWorker') : p.overdue ? t('overdue') : p.remainingMs !== null ? t('remaining', remaining(p.remainingMs)) : '';
  return (
    <div className="flex flex-col gap-1">
      <div
        role="progressbar"
        aria-label={t('progressOf', { prompt: job.prompt.slice(0, 60) })}
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={percent}
        aria-valuetext={t('progressText', { percent, note })}
        data-testid="video-progress"
        data-progress={p.fraction.toFixed(3)}
        className="h-2 overflow-hidden rounded-full bg-muted"
      >
        <div className="h-full rounded-full bg-primary transition-[width] duration-300 ease-linear" style={{ width: `${percent}%` }} />
      </div>
      <p className="flex justify-between text-xs text-muted-foreground" data-testid="video-remaining">
        <span>{note}</span>
        <span className="tabular-nums">{percent}%</span>
      </p>
    </div>
  );
}

export function JobCard({ job, sinceFetchMs, retentionMs }: { job: AppVideoJob; sinceFetchMs: number; retentionMs: number }) {
  const t = useTranslations('video');
  const fmt = useFormat();
  const [confirming, setConfirming] = useState(false);
  const remove = useDeleteVideo();
  const toast = useToast();
  const active = isActive(job);
  const meta = [t('seconds', { seconds: job.seconds }), job.aspectRatio, job.resolution, job.audio ? t('withSound') : t('silent'), job.modelName]
    .filter(Boolean)
    .join(' · ');

  const confirm = () =>
    remove.mutate(job.id, {
      onSuccess: () => {
        setConfirming(false);
        toast({ message: active ? t('stopped') : t('deleted'), tone: 'success' });
      },
      onError: (e) => {
        setConfirming(false);
        toast({ message: t('deleteFailed', { error: e.message }), tone: 'error' });
      },
    });

  return (
    <li className="flex flex-col gap-3 rounded-xl border border-border p-4" data-testid="video-job" data-id={job.id} data-status={job.status}>
      <div className="flex items-start justify-between gap-3">
        <div className="min-w-0">
          <p className="line-clamp-3 break-words font-medium">{job.prompt}</p>
          <p className="mt-1 text-xs text-muted-foreground">
            {meta} · <time dateTime={new Date(job.createdAt).toISOString()}>{fmt.when(job.createdAt)}</time>
          </p>
        </div>
        <span className="shrink-0 rounded-full border border-border px-2 py-0.5 text-xs font-medium" data-testid="video-status">
          {t(`status.${job.status}`)}
        </span>
      </div>
      {active && <ProgressBar job={job} sinceFetchMs={sinceFetchMs} />}
      {job.status === 'succeeded' && job.mediaUrl && (
        // biome-ignore lint/a11y/useMediaCaption: generated clips have no speech to caption; the prompt labels the player
        <video
          controls
          preload="metadata"
          playsInline
          src={job.mediaUrl}
          width={job.width || undefined}
          height={job.height || undefined}
          aria-label={t('player', { prompt: job.prompt.slice(0, 120) })}
          className="h-auto max-h-[70vh] w-full rounded-lg bg-black object-contain"
          data-testid="video-player"
        />
      )}
      {job.status === 'failed' && (
        <Alert title={t('failedTitle')} data-testid="video-failure">
          {job.error?.message ?? t('failedJob')}
          {t('nothingCharged')}
        </Alert>
      )}
      <div className="flex flex-wrap items-center gap-2">
        {job.status === 'succeeded' && job.downloadUrl && (
          <a href={job.downloadUrl} download className={buttonClasses('secondary', 'sm')} data-testid="video-download">
            {t('download')}
          </a>
        )}
        <Button variant="ghost" size="sm" onClick={() => setConfirming(true)} data-testid="video-delete">
          {active ? t('stop') : t('delete')}
        </Button>
        {job.status === 'succeeded' && job.finishedAt !== null && (
          <p className="text-xs text-muted-foreground" data-testid="video-expires">
            {t('keptUntil', { when: fmt.when(job.finishedAt + retentionMs) })}
          </p>
        )}
      </div>
      <ConfirmDialog
        open={confirming}
        title={active ? t('stopTitle') : t('deleteTitle')}
        message={active ? t('stopBody') : t('deleteBody')}
        confirmLabel={active ? t('stopConfirm') : t('deleteConfirm')}
        pending={remove.isPending}
        onConfirm={confirm}
        onCancel={() => setConfirming(false)}
      />
    </li>
  );
}
