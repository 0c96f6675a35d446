'use client';
// The account's videos, newest first, from the server's list (so they survive reloads). While any is queued or
// running the list is polled (queries.ts) and the bars advance between polls from the time since the last fetch.
// data-testid: video-jobs, video-jobs-empty.
import { useTranslations } from 'use-intl';
import { useEffect, useState } from 'react';
import { EmptyState, LoadError, LoadingBlock } from '@/components/ui/query-state.tsx';
import { JobCard } from '@/components/video/job-card.tsx';
import { useVideoJobs } from '@/components/video/queries.ts';

const TICK_MS = 250;

/** The clock, ticking only while `running`. */
function useNow(running: boolean): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!running) return;
    setNow(Date.now());
    const timer = setInterval(() => setNow(Date.now()), TICK_MS);
    return () => clearInterval(timer);
  }, [running]);
  return now;
}

export function JobList() {
  const t = useTranslations('video');
  const jobs = useVideoJobs();
  const list = jobs.data?.jobs ?? [];
  const now = useNow(list.some((j) => j.status === 'running'));
  if (jobs.isPending) {
    return <LoadingBlock label={t('loadingList')} pad="py-8" />;
  }
  if (jobs.isError && !jobs.data) {
    return <LoadError title={t('listFailed')} error={jobs.error} onRetry={jobs.refetch} retrying={jobs.isFetching} />;
  }
  if (!list.length) {
    return <EmptyState testId="video-jobs-empty">{t('empty')}</EmptyState>;
  }
  const sinceFetch = Math.max(0, now - jobs.dataUpdatedAt);
  return (
    <ul className="flex flex-col gap-4" data-testid="video-jobs">
      {list.map((job) => (
        <JobCard key={job.id} job={job} sinceFetchMs={sinceFetch} retentionMs={jobs.data.retentionMs} />
      ))}
    </ul>
  );
}
