'use client';
// A character's reviews: the signed-in user's own (write, edit, delete: one per user), then everyone's, newest
// pages first; the operator can remove any. Review text is shown as plain text.
// data-testid: reviews, my-review, review-form, review-text, review-submit, review-error, edit-review, delete-review,
// review (data-mine), operator-remove-review, reviews-pager.
import { useTranslations } from 'use-intl';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { call } from '@/components/api/client.ts';
import { Pager } from '@/components/billing/pager.tsx';
import { Alert } from '@/components/ui/alert.tsx';
import { Button } from '@/components/ui/button.tsx';
import { ConfirmDialog } from '@/components/ui/confirm-dialog.tsx';
import { EmptyState, QueryContent } from '@/components/ui/query-state.tsx';
import { useToast } from '@/components/ui/toast.tsx';
import { REVIEWS_PAGE_SIZE, charKeys, useReviews } from '@/components/characters/queries.ts';
import { StarPicker, StarRow } from '@/components/characters/stars.tsx';
import { TextArea } from '@/components/characters/text-area.tsx';
import type { CharacterDetail, CharacterReview } from '@/components/characters/types.ts';
import { useFormat } from '@/components/i18n/format.ts';

const TEXT_MAX = 2000;

function ReviewForm({ slug, mine, onDone }: { slug: string; mine: CharacterReview | null; onDone: () => void }) {
  const t = useTranslations('characters');
  const tc = useTranslations('common');
  const qc = useQueryClient();
  const id = useId();
  const [rating, setRating] = useState(mine?.rating ?? 0);
  const [text, setText] = useState(mine?.text ?? '');
  const save = useMutation({
    mutationFn: () => call('PUT /characters/:slug/review', { params: { slug }, body: { rating, text: text.trim() } }),
    onSuccess: () => {
      void qc.invalidateQueries({ queryKey: charKeys.all });
      onDone();
    },
  });
  return (
    <form
      className="flex flex-col gap-3"
      data-testid="review-form"
      onSubmit={(e) => {
        e.preventDefault();
        if (rating) save.mutate();
      }}
    >
      <StarPicker value={rating} onChange={setRating} name={`${id}-rating`} />
      <TextArea
        id={`${id}-text`}
        label={t('reviewText')}
        value={text}
        maxLength={TEXT_MAX}
        rows={3}
        onChange={(e) => setText(e.target.value)}
        data-testid="review-text"
      />
      {save.isError && (
        <Alert title={t('reviewSaveFailed')} data-testid="review-error">
          {save.error.message}
        </Alert>
      )}
      <div className="flex gap-2">
        <Button type="submit" pending={save.isPending} disabled={!rating} data-testid="review-submit">
          {mine ? t('saveReview') : t('postReview')}
        </Button>
        {mine && (
          <Button variant="ghost" onClick={onDone}>
            {tc('cancel')}
          </Button>
        )}
      </div>
      {!rating && <p className="text-xs text-muted-foreground">{t('pickStars')}</p>}
    </form>
  );
}

function ReviewItem({ review, actions }: { review: CharacterReview; actions?: React.ReactNode }) {
  const t = useTranslations('characters');
  const fmt = useFormat();
  return (
    <li className="flex flex-col gap-1 border-b border-border py-3 last:border-b-0" data-testid="review" data-mine={review.isMine}>
      <div className="flex flex-wrap items-center gap-x-2 gap-y-1 text-sm">
        <span className="font-medium break-all">{review.author.name}</span>
        <StarRow value={review.rating} />
        <span className="text-xs text-muted-foreground">
          {fmt.date(review.createdAt)}
          {review.updatedAt !== review.createdAt && t('edited')}
        </span>
      </div>
      {review.text && <p className="text-sm whitespace-pre-wrap break-words">{review.text}</p>}
      {actions}
    </li>
  );
}

function MyReview({ character }: { character: CharacterDetail }) {
  const t = useTranslations('characters');
  const tc = useTranslations('common');
  const qc = useQueryClient();
  const toast = useToast();
  const mine = character.myReview;
  const [editing, setEditing] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const remove = useMutation({
    mutationFn: () => call('DELETE /characters/:slug/review', { params: { slug: character.slug } }),
    onSuccess: () => {
      setConfirming(false);
      void qc.invalidateQueries({ queryKey: charKeys.all });
    },
    onError: (e) => {
      setConfirming(false);
      toast({ message: e.message, tone: 'error' });
    },
  });
  if (character.isOwner) return null;
  return (
    <section aria-labelledby="my-review-title" className="rounded-xl border border-border p-4" data-testid="my-review">
      <h3 id="my-review-title" className="mb-2 text-base font-semibold">
        {mine ? t('yourReview') : t('reviewThis')}
      </h3>
      {!mine || editing ? (
        <ReviewForm key={mine?.updatedAt ?? 'new'} slug={character.slug} mine={mine} onDone={() => setEditing(false)} />
      ) : (
        <ul>
          <ReviewItem
            review={mine}
            actions={
              <div className="mt-1 flex gap-2">
                <Button size="sm" variant="secondary" onClick={() => setEditing(true)} data-testid="edit-review">
                  {tc('edit')}
                </Button>
                <Button size="sm" variant="ghost" onClick={() => setConfirming(true)} data-testid="delete-review">
                  {tc('delete')}
                </Button>
              </div>
            }
          />
        </ul>
      )}
      <ConfirmDialog
        open={confirming}
        title={t('deleteReviewTitle')}
        message={t('deleteReviewMessage')}
        confirmLabel={t('deleteReview')}
        pending={remove.isPending}
        onConfirm={() => remove.mutate()}
        onCancel={() => setConfirming(false)}
      />
    </section>
  );
}

function OperatorRemove({ review }: { review: CharacterReview }) {
  const t = useTranslations('characters');
  const qc = useQueryClient();
  const toast = useToast();
  const [confirming, setConfirming] = useState(false);
  const remove = useMutation({
    mutationFn: () => call('DELETE /operator/reviews/:id', { params: { id: review.id } }),
    onSuccess: () => {
      setConfirming(false);
      void qc.invalidateQueries({ queryKey: charKeys.all });
      toast({ message: t('removedReview', { name: review.author.name }), tone: 'success' });
    },
    onError: (e) => {
      setConfirming(false);
      toast({ message: e.message, tone: 'error' });
    },
  });
  return (
    <div className="mt-1">
      <Button size="sm" variant="ghost" onClick={() => setConfirming(true)} data-testid="operator-remove-review">
        {t('operatorRemove')}
      </Button>
      <ConfirmDialog
        open={confirming}
        title={t('removeReviewTitle')}
        message={t('removeReviewMessage', { name: review.author.name })}
        confirmLabel={t('removeReview')}
        pending={remove.isPending}
        onConfirm={() => remove.mutate()}
        onCancel={() => setConfirming(false)}
      />
    </div>
  );
}

export function Reviews({ character, isAdmin }: { character: CharacterDetail; isAdmin: boolean }) {
  const t = useTranslations('characters');
  const [page, setPage] = useState(1);
  const list = useReviews(character.slug, page);
  const { ratingCount, averageRating } = character.stats;
  return (
    <section aria-labelledby="reviews-title" className="flex flex-col gap-4" data-testid="reviews">
      <div className="flex flex-wrap items-center gap-3">
        <h2 id="reviews-title" className="text-lg font-semibold">
          {t('reviews')}
        </h2>
        {ratingCount > 0 && averageRating !== null && (
          <span className="inline-flex items-center gap-1.5 text-sm text-muted-foreground" data-testid="rating-summary">
            <StarRow value={averageRating} /> {t('ratingSummary', { average: averageRating.toFixed(1), count: ratingCount })}
          </span>
        )}
      </div>
      <MyReview character={character} />
      <QueryContent query={list} loading={t('loadingReviews')} failed={t('failedReviews')}>
        {(data) => {
          const others = data.reviews.filter((r) => !r.isMine);
          return (
            <>
              {others.length ? (
                <ul>
                  {others.map((r) => (
                    <ReviewItem key={r.id} review={r} actions={isAdmin ? <OperatorRemove review={r} /> : undefined} />
                  ))}
                </ul>
              ) : (
                data.total <= (character.myReview ? 1 : 0) && <EmptyState>{t('noOtherReviews')}</EmptyState>
              )}
              {data.total > REVIEWS_PAGE_SIZE && (
                <Pager
                  page={data.page}
                  totalPages={Math.ceil(data.total / REVIEWS_PAGE_SIZE)}
                  total={data.total}
                  noun="reviews"
                  onPage={setPage}
                  testId="reviews-pager"
                />
              )}
            </>
          );
        }}
      </QueryContent>
    </section>
  );
}
