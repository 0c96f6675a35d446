'use client';
// The account's videos, newest first, from the server's list (so they survive reloads). While any is queued or
// running the list is polled (queries.ts) and the bars advance between polls from the time since the last fetch.
// data-testid: video-jobs, video-jobs-empty.
import { useEffect, useState } from 'react';
import { Alert } from '@/components/ui/alert.tsx';
import { Button } from '@/components/ui/button.tsx';
import { Spinner } from '@/components/ui/spinner.tsx';
import { JobCard } from '@/components/video/job-card.tsx';
import { useVideoJobs } from '@/components/video/queries.ts';

const TICK_MS = 250;

/** The clock, ticking only while `running`. */
function useNow(running: boolean): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!running) return;
    setNow(Date.now());
    const t = setInterval(() => setNow(Date.now()), TICK_MS);
    return () => clearInterval(t);
  }, [running]);
  return now;
}

export function JobList() {
  const jobs = useVideoJobs();
  const list = jobs.data?.jobs ?? [];
  const now = useNow(list.some((j) => j.status === 'running'));
  if (jobs.isPending) {
    return (
      <div className="flex justify-center py-8 text-muted-foreground">
        <Spinner label="Loading your videos" className="size-6" />
      </div>
    );
  }
  if (jobs.isError && !jobs.data) {
    return (
      <Alert
        title="Could not load your videos"
        action={
          <Button size="sm" variant="secondary" onClick={() => void jobs.refetch()} pending={jobs.isFetching}>
            Retry
          </Button>
        }
      >
        {jobs.error.message}
      </Alert>
    );
  }
  if (!list.length) {
    return (
      <p className="rounded-xl border border-dashed border-border px-4 py-8 text-center text-sm text-muted-foreground" data-testid="video-jobs-empty">
        No videos yet. The ones you generate are listed here until you delete them or they expire.
      </p>
    );
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
