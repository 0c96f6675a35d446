// What a page or a panel shows while its query loads, when it failed, and when it came back empty.
import { useTranslations } from 'use-intl';
import type { ReactNode } from 'react';
import { Alert } from '@/components/ui/alert.tsx';
import { Button } from '@/components/ui/button.tsx';
import { Spinner } from '@/components/ui/spinner.tsx';

/** A centred, announced spinner standing in for a page's or a panel's content (`pad`: its vertical padding). */
export function LoadingBlock({ label, pad = 'py-10' }: { label: string; pad?: 'py-8' | 'py-10' }) {
  return (
    <div className={`flex justify-center ${pad} text-muted-foreground`}>
      <Spinner label={label} className="size-6" />
    </div>
  );
}

/**
 * A query's error, with a Retry button when `onRetry` is given (showing `retrying` as pending, e.g. the query's
 * isFetching).
 */
export function LoadError({ title, error, onRetry, retrying }: { title: string; error: Error; onRetry?: () => unknown; retrying?: boolean }) {
  const tc = useTranslations('common');
  return (
    <Alert
      title={title}
      action={
        onRetry && (
          <Button size="sm" variant="secondary" onClick={() => void onRetry()} pending={retrying}>
            {tc('retry')}
          </Button>
        )
      }
    >
      {error.message}
    </Alert>
  );
}

/** What QueryContent reads of a query (a TanStack Query result has all of it). */
export interface QueryLike<T> {
  isPending: boolean;
  isError: boolean;
  isFetching: boolean;
  data: T | undefined;
  error: Error | null;
  refetch: () => unknown;
}

/**
 * A page's content from its query: a spinner while it first loads, its error with Retry when it failed with nothing to
 * show, else `children` with the data (kept while a refetch fails).
 */
export function QueryContent<T>({
  query,
  loading,
  failed,
  children,
}: {
  query: QueryLike<T>;
  /** The spinner's label, e.g. "Loading your keys". */
  loading: string;
  /** The error's title, e.g. "Could not load your keys". */
  failed: string;
  children: (data: T) => ReactNode;
}) {
  if (query.isPending) return <LoadingBlock label={loading} />;
  if (query.isError && !query.data) return <LoadError title={failed} error={query.error!} onRetry={query.refetch} retrying={query.isFetching} />;
  return <>{children(query.data as T)}</>;
}

/** The dashed box that says a list or a table has nothing to show. */
export function EmptyState({ testId, children }: { testId?: string; children: ReactNode }) {
  return (
    <p className="rounded-xl border border-dashed border-border px-4 py-8 text-center text-sm text-muted-foreground" data-testid={testId}>
      {children}
    </p>
  );
}
