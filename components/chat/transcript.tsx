'use client';
// The transcript, virtualised (@tanstack/react-virtual, measured heights), so a 1,000-message chat mounts only the
// rows in view. Scrolling follows the end only while the reader is at the end: the virtualizer's end anchor keeps
// the bottom pinned as the live answer grows and stops the moment they scroll up; rows measured above the
// viewport shift the scroll position by their own delta, so nothing jumps. Positions and the total height are
// written to the DOM directly (directDomUpdates), so a growing answer costs no re-render here.
import { useVirtualizer } from '@tanstack/react-virtual';
import { memo, useEffect, useLayoutEffect, useRef, useState } from 'react';
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

export const Transcript = memo(function Transcript({ rows, busy, followToken }: Props) {
  const scrollRef = useRef<HTMLDivElement>(null);
  const [atEnd, setAtEnd] = useState(true);
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: (i) => (rows[i]?.kind === 'message' && rows[i].message.role === 'assistant' ? 220 : 88),
    getItemKey: (i) => rows[i]?.key ?? i,
    overscan: 4,
    paddingStart: 16,
    paddingEnd: 24,
    anchorTo: 'end',
    followOnAppend: true,
    scrollEndThreshold: END_SLACK,
    directDomUpdates: true,
    onChange: (v) => setAtEnd(v.getDistanceFromEnd() <= END_SLACK + 40),
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
      pinned = el.scrollHeight - el.scrollTop - el.clientHeight <= END_SLACK + 1;
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
        aria-label="Conversation"
        className="h-full overflow-y-auto overscroll-contain [overflow-anchor:none] focus-visible:-outline-offset-2"
      >
        <div ref={virtualizer.containerRef} className="relative mx-auto w-full max-w-3xl">
          {items.map((item) => (
            <div
              key={item.key}
              data-index={item.index}
              ref={virtualizer.measureElement}
              className="absolute top-0 left-0 w-full px-3 pb-5 sm:px-6"
            >
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
          <ArrowDownIcon /> Jump to latest
        </button>
      )}
    </div>
  );
});
