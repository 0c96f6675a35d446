// The text of answers being generated, outside React state: the stream writes here on every token, and only the
// row showing that message subscribes (useSyncExternalStore), so tokens never re-render the rest of the chat.
// Listeners are told at most once per animation frame; a final state is published at once.
import { useCallback, useSyncExternalStore } from 'react';
import type { AppCitation, AppMessageStatus, AppToolStep } from '@/lib/wire.ts';

export interface LiveAnswer {
  content: string;
  reasoning: string;
  citations: AppCitation[];
  /** The server-side tool calls so far, in order. */
  toolSteps: AppToolStep[];
  status: AppMessageStatus;
  /** When reasoning started and when the answer proper started, for "Thought for N s". */
  reasoningStartedAt?: number;
  reasoningEndedAt?: number;
  /** The stream connection dropped and is being retried. */
  reconnecting: boolean;
  /** Stop was requested and is on its way to the server. */
  stopping: boolean;
}

interface Entry {
  id: string;
  published: LiveAnswer;
  draft: LiveAnswer;
  frame: number | null;
}

const entries = new Map<string, Entry>();
/** Seconds spent reasoning, for answers this page watched being generated (the server does not store it). */
const thought = new Map<string, number>();

export function thoughtSeconds(id: string, live?: LiveAnswer): number | undefined {
  if (live?.reasoningStartedAt && live.reasoningEndedAt) return (live.reasoningEndedAt - live.reasoningStartedAt) / 1000;
  return thought.get(id);
}

/** Kept apart from entries: a row listens before (and after) its message is live. */
const listeners = new Map<string, Set<() => void>>();

function notify(id: string): void {
  for (const l of listeners.get(id) ?? []) l();
}

const schedule = (cb: () => void): number =>
  typeof requestAnimationFrame === 'function' ? requestAnimationFrame(cb) : (setTimeout(cb, 16) as unknown as number);
const unschedule = (h: number): void => (typeof cancelAnimationFrame === 'function' ? cancelAnimationFrame(h) : clearTimeout(h));

function entry(id: string, seed?: Partial<LiveAnswer>): Entry {
  let e = entries.get(id);
  if (!e) {
    const first: LiveAnswer = { content: '', reasoning: '', citations: [], toolSteps: [], status: 'streaming', reconnecting: false, stopping: false, ...seed };
    e = { id, published: first, draft: { ...first }, frame: null };
    entries.set(id, e);
  }
  return e;
}

/** Starts tracking message `id` from what is already known of it (the stored partial answer), so nothing blinks. */
export function seedLive(id: string, seed: Partial<LiveAnswer>): void {
  if (!entries.has(id)) {
    entry(id, seed);
    notify(id);
  }
}

function publish(e: Entry): void {
  if (e.frame !== null) unschedule(e.frame);
  e.frame = null;
  e.published = { ...e.draft };
  notify(e.id);
}

/** Changes a live answer; subscribers hear of it on the next frame, or now when `immediate`. */
export function updateLive(id: string, change: (draft: LiveAnswer) => void, immediate = false): void {
  const e = entry(id);
  change(e.draft);
  if (immediate) publish(e);
  else if (e.frame === null) e.frame = schedule(() => publish(e));
}

export function getLive(id: string): LiveAnswer | undefined {
  return entries.get(id)?.published;
}

/** Forgets a finished answer once the stored message has taken over (the row then reads the query cache). */
export function dropLive(id: string): void {
  const e = entries.get(id);
  if (!e) return;
  const { reasoningStartedAt: start, reasoningEndedAt: end } = e.draft;
  if (start && end) thought.set(id, (end - start) / 1000);
  if (e.frame !== null) unschedule(e.frame);
  entries.delete(id);
  notify(id);
}

function subscribe(id: string, listener: () => void): () => void {
  let set = listeners.get(id);
  if (!set) listeners.set(id, (set = new Set()));
  set.add(listener);
  return () => {
    set.delete(listener);
    if (set.size === 0) listeners.delete(id);
  };
}

/** Just the status of message `id`'s live answer: a primitive, so the chat view re-renders on changes of state only. */
export function useLiveStatus(id: string | undefined): 'streaming' | 'stopping' | 'done' | undefined {
  const sub = useCallback((l: () => void) => (id ? subscribe(id, l) : () => {}), [id]);
  const get = useCallback(() => {
    const live = id ? getLive(id) : undefined;
    if (!live) return undefined;
    return live.status !== 'streaming' ? 'done' : live.stopping ? 'stopping' : 'streaming';
  }, [id]);
  return useSyncExternalStore(sub, get, noLive);
}

/** The live state of message `id`, or undefined when nothing is streaming for it. */
export function useLiveAnswer(id: string): LiveAnswer | undefined {
  const sub = useCallback((l: () => void) => subscribe(id, l), [id]);
  const get = useCallback(() => getLive(id), [id]);
  return useSyncExternalStore(sub, get, noLive);
}

const noLive = (): undefined => undefined;
