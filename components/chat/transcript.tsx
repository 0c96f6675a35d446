'use client';
// The transcript, virtualised (@tanstack/react-virtual, measured heights), so a 1,000-message chat mounts only the
// rows in view. Scrolling follows the end only while the reader is at the end: the virtualizer's end anchor keeps
// the bottom pinned as the live answer grows and stops the moment they scroll up; rows measured above the
// viewport shift the scroll position by their own delta, so nothing jumps. Positions and the total height are
// written to the DOM directly (directDomUpdates), so a growing answer costs no re-render here.
import { useVirtualizer, type Virtualizer } from '@tanstack/react-virtual';
import { memo, useEffect, useLayoutEffect, useRef, useState } from 'react';
import { useTranslations } from 'use-intl';
import { ArrowDownIcon } from './icons.tsx';
import { TranscriptRow } from './transcript-row.tsx';
import type { TranscriptRow as Row } from './transcript-rows.ts';

interface Props {
  rows: Row[];
  busy: boolean;
  /** Changes when the reader sent something: scroll to the end even if they had scrolled up. */
  followToken: number;
}

const END_SLACK = 4;
const VIEWPORT_GUESS = 700;

/**
 * Row heights come from the ResizeObserver (after layout, before paint), never from a read when a row mounts: each
 * such read forces a layout, and the position written after it invalidates that layout again — opening a long chat
 * would lay out the page once per row. Until its entry arrives a row keeps its known (or estimated) size.
 */
function measureElement(el: Element, entry: ResizeObserverEntry | undefined, v: Virtualizer<HTMLDivElement, Element>): number {
  const box = entry?.borderBoxSize?.[0];
  if (box) return box.blockSize;
  const index = v.indexFromElement(el);
  return v.itemSizeCache.get(v.options.getItemKey(index)) ?? v.options.estimateSize(index);
}

/** Pixels below the viewport, from the virtualizer's model of the list (no layout read). */
const distanceFromEnd = (v: { getTotalSize(): number; scrollOffset: number | null; scrollRect: { height: number } | null }) =>
  v.getTotalSize() - (v.scrollOffset ?? 0) - (v.scrollRect?.height ?? 0);

export const Transcript = memo(function Transcript({ rows, busy, followToken }: Props) {
  const t = useTranslations('chat.message');
  const scrollRef = useRef<HTMLDivElement>(null);
  const [atEnd, setAtEnd] = useState(true);
  const estimateSize = (i: number) => (rows[i]?.kind === 'message' && rows[i].message.role === 'assistant' ? 220 : 88);
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scrollRef.current,
    estimateSize,
    // Start at the end, so opening a long chat renders its last rows only (not the first ones, then the last).
    initialRect: { width: 0, height: VIEWPORT_GUESS },
    initialOffset: () => {
      let total = 0;
      for (let i = 0; i < rows.length; i++) total += estimateSize(i);
      return Math.max(0, total - VIEWPORT_GUESS);
    },
    getItemKey: (i) => rows[i]?.key ?? i,
    overscan: 4,
    paddingStart: 16,
    paddingEnd: 24,
    anchorTo: 'end',
    followOnAppend: true,
    scrollEndThreshold: END_SLACK,
    directDomUpdates: true,
    measureElement,
    // From the virtualizer's own numbers: reading scrollHeight here would force a layout on every streamed frame.
    onChange: (v) => setAtEnd(distanceFromEnd(v) <= END_SLACK + 40),
  });

  // Open at the latest message.
  const opened = useRef(false);
  useLayoutEffect(() => {
    if (opened.current || rows.length === 0) return;
    opened.current = true;
    virtualizer.scrollToEnd();
  }, [rows.length, virtualizer]);

  useEffect(() => {
    if (followToken) virtualizer.scrollToEnd();
  }, [followToken, virtualizer]);

  // The viewport itself changes height too (the composer grows, the phone keyboard opens): a reader at the end
  // stays there. Whether they were is known from their last scroll, before the resize moved anything.
  useEffect(() => {
    const el = scrollRef.current;
    if (!el) return;
    let pinned = true;
    const onScroll = () => {
      pinned = distanceFromEnd(virtualizer) <= END_SLACK + 1;
    };
    const ro = new ResizeObserver(() => {
      if (pinned) virtualizer.scrollToEnd();
    });
    el.addEventListener('scroll', onScroll, { passive: true });
    ro.observe(el);
    return () => {
      el.removeEventListener('scroll', onScroll);
      ro.disconnect();
    };
  }, [virtualizer]);

  const items = virtualizer.getVirtualItems();
  return (
    <div className="relative h-full min-h-0">
      <div
        ref={scrollRef}
        tabIndex={0}
        role="region"
        aria-label={t('conversation')}
        className="h-full overflow-y-auto overscroll-contain [overflow-anchor:none] focus-visible:-outline-offset-2"
      >
        <div ref={virtualizer.containerRef} className="relative mx-auto w-full max-w-3xl">
          {items.map((item) => (
            <div key={item.key} data-index={item.index} ref={virtualizer.measureElement} className="absolute top-0 left-0 w-full px-3 pb-5 sm:px-6">
              <TranscriptRow row={rows[item.index]} busy={busy} />
            </div>
          ))}
        </div>
      </div>
      {!atEnd && (
        <button
          type="button"
          onClick={() => virtualizer.scrollToEnd()}
          className={`absolute bottom-3 left-1/2 flex -translate-x-1/2 items-center gap-1.5 rounded-full border border-border bg-background px-3 py-1.5 text-sm font-medium text-foreground shadow-md hover:bg-accent`}
        >
          <ArrowDownIcon /> {t('jumpToLatest')}
        </button>
      )}
    </div>
  );
});
