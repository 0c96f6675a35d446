'use client';
// The video page (/video): a form for a new clip with its price before it is sent, and the account's clips below,
// each with its progress, a player and a download once made. Clips are made by the job service (lib/jobs) through
// the user's own account, billed as on the API's /video routes.
// data-testid: video-page, video-unavailable.
import { useTranslations } from 'use-intl';
import Link from 'next/link';
import { Alert } from '@/components/ui/alert.tsx';
import { LoadError, LoadingBlock } from '@/components/ui/query-state.tsx';
import { Section } from '@/components/usage/section.tsx';
import { JobList } from '@/components/video/job-list.tsx';
import { useVideoModels } from '@/components/video/queries.ts';
import { VideoForm } from '@/components/video/video-form.tsx';

function NewVideo() {
  const t = useTranslations('video');
  const models = useVideoModels();
  if (models.isPending) {
    return <LoadingBlock label={t('loadingModels')} pad="py-8" />;
  }
  if (models.isError) {
    return <LoadError title={t('modelsFailed')} error={models.error} onRetry={models.refetch} retrying={models.isFetching} />;
  }
  const { models: list, unavailable } = models.data;
  if (unavailable || !list.length) {
    return (
      <Alert tone="info" title={t('none')} data-testid="video-unavailable">
        {unavailable ?? t('noModel')}
      </Alert>
    );
  }
  return <VideoForm models={list} />;
}

export function VideoPage() {
  const t = useTranslations('video');
  return (
    <div className="flex-1 overflow-y-auto" data-testid="video-page">
      <div className="mx-auto flex max-w-3xl flex-col gap-6 px-4 py-6 sm:px-6 sm:py-8">
        <header>
          <h1 className="text-2xl font-semibold tracking-tight">{t('title')}</h1>
          <p className="mt-1 text-sm text-muted-foreground">
            {t('intro')}{' '}
            <Link href="/account" className="font-medium text-primary underline-offset-4 hover:underline">
              {t('balances')}
            </Link>
          </p>
        </header>
        <Section id="video-new" title={t('new')}>
          <NewVideo />
        </Section>
        <Section id="video-list" title={t('yours')}>
          <JobList />
        </Section>
      </div>
    </div>
  );
}
