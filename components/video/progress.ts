// A job's progress as the page draws it: the running attempt's execution_duration over the model's
// average_execution_time (both from the server's list), advanced by the time since the list was fetched so the bar
// moves between polls. It stops short of full until the server says the job is done: an estimate is not an end.
import type { AppVideoJob } from '@/lib/video/wire.ts';

export const MAX_ESTIMATED = 0.99;

export interface Progress {
  /** 0…1. */
  fraction: number;
  /** ms left by the estimate; null while queued (not started) or once over. */
  remainingMs: number | null;
  /** Running past the estimate. */
  overdue: boolean;
}

export function jobProgress(job: Pick<AppVideoJob, 'status' | 'executionDuration' | 'averageExecutionTime'>, sinceFetchMs: number): Progress {
  if (job.status === 'succeeded' || job.status === 'failed') return { fraction: 1, remainingMs: null, overdue: false };
  if (job.status === 'queued') return { fraction: 0, remainingMs: null, overdue: false };
  const ran = job.executionDuration + Math.max(0, sinceFetchMs);
  const expected = Math.max(1, job.averageExecutionTime);
  return { fraction: Math.min(MAX_ESTIMATED, ran / expected), remainingMs: Math.max(0, expected - ran), overdue: ran > expected };
}

export const isActive = (job: Pick<AppVideoJob, 'status'>): boolean => job.status === 'queued' || job.status === 'running';

/** The time left, rounded for a reader: seconds under 90 s, else minutes. */
export function remaining(ms: number): { amount: number; unit: 's' | 'min' } {
  const s = Math.max(1, Math.ceil(ms / 1000));
  return s < 90 ? { amount: s, unit: 's' } : { amount: Math.round(s / 60), unit: 'min' };
}
