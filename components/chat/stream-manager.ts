// Attaches to an answer's event stream and keeps it attached: module-level (not tied to a component), so the
// stream survives the new-chat → /c/<id> navigation; a dropped connection is retried with backoff, and every
// (re)attach starts with a snapshot that REPLACES the text, so a resume never duplicates it.
import type { QueryClient } from '@tanstack/react-query';
import { APP_API, qk } from '@/components/api/client';
import type { AppMessage, GenerationEvent } from '@/lib/wire.ts';
import { cachedMessage, upsertMessages } from './chat-cache.ts';
import { dropLive, seedLive, updateLive } from './live-store.ts';
import { readGenerationEvents, type TurnStream } from './sse.ts';

const running = new Map<string, AbortController>();
const MAX_ATTEMPTS = 12;

/**
 * Starts following message `messageId` unless already following it. `first`: the answer's events already coming on
 * the turn's own response (a streamed send); a reattach, if that one drops, asks GET /messages/:id/stream.
 */
export function followStream(qc: QueryClient, conversationId: string, messageId: string, first?: TurnStream<unknown>): void {
  if (running.has(messageId)) {
    first?.cancel();
    return;
  }
  const ctl = new AbortController();
  running.set(messageId, ctl);
  const known = cachedMessage(qc, conversationId, messageId);
  seedLive(messageId, { content: known?.content ?? '', reasoning: known?.reasoning ?? '', citations: known?.citations ?? [] });
  void run(qc, conversationId, messageId, ctl.signal, first).finally(() => {
    if (running.get(messageId) === ctl) running.delete(messageId);
  });
}

/** Applies the stored final state of an answer (from `done` or from a stop) and lets the stream go. */
export function finishAnswer(qc: QueryClient, message: AppMessage): void {
  running.get(message.id)?.abort();
  running.delete(message.id);
  upsertMessages(qc, message.conversationId, [message]);
  updateLive(
    message.id,
    (d) => {
      d.content = message.content;
      d.reasoning = message.reasoning ?? '';
      d.citations = message.citations;
      d.status = message.status;
      d.reconnecting = false;
      d.stopping = false;
      if (d.reasoningStartedAt && !d.reasoningEndedAt) d.reasoningEndedAt = Date.now();
    },
    true,
  );
  // The cache now holds the same text; the live copy can go once React has rendered from it.
  setTimeout(() => dropLive(message.id), 1500);
  void qc.invalidateQueries({ queryKey: qk.conversations });
  void qc.invalidateQueries({ queryKey: qk.account });
}

function apply(qc: QueryClient, id: string, ev: GenerationEvent): void {
  const now = Date.now();
  if (ev.type === 'done') {
    finishAnswer(qc, ev.message);
    return;
  }
  updateLive(id, (d) => {
    d.reconnecting = false;
    if (ev.type === 'snapshot') {
      d.content = ev.content;
      d.reasoning = ev.reasoning;
      d.citations = ev.citations;
      d.toolSteps = ev.toolSteps ?? [];
      d.status = ev.status;
    } else if (ev.type === 'citations') {
      d.citations = ev.citations;
    } else if (ev.type === 'tool') {
      const i = d.toolSteps.findIndex((s) => s.id === ev.step.id && s.round === ev.step.round);
      d.toolSteps = i >= 0 ? d.toolSteps.map((s, j) => (j === i ? ev.step : s)) : [...d.toolSteps, ev.step];
    } else {
      if (ev.reasoning) {
        d.reasoning += ev.reasoning;
        d.reasoningStartedAt ??= now;
      }
      if (ev.content) {
        d.content += ev.content;
        if (d.reasoningStartedAt && !d.reasoningEndedAt) d.reasoningEndedAt = now;
      }
    }
  });
}

async function run(qc: QueryClient, conversationId: string, id: string, signal: AbortSignal, first?: TurnStream<unknown>): Promise<void> {
  for (let attempt = 0; !signal.aborted && attempt < MAX_ATTEMPTS; attempt++) {
    if (attempt > 0) {
      updateLive(id, (d) => void (d.reconnecting = true), true);
      await backoff(attempt, signal);
      if (signal.aborted) return;
    }
    try {
      if (first) {
        const stream = first;
        first = undefined;
        const stop = () => stream.cancel();
        signal.addEventListener('abort', stop, { once: true });
        let progressed = false;
        try {
          await stream.events((ev) => {
            progressed = true;
            apply(qc, id, ev);
          });
        } finally {
          signal.removeEventListener('abort', stop);
        }
        if (!running.has(id)) return; // `done` arrived
        if (progressed) attempt = 0;
        continue;
      }
      const res = await fetch(`${APP_API}/messages/${encodeURIComponent(id)}/stream`, {
        headers: { accept: 'text/event-stream' },
        credentials: 'same-origin',
        cache: 'no-store',
        signal,
      });
      if ([401, 403, 404].includes(res.status)) break; // gone or not ours: nothing to resume
      if (!res.ok || !res.body) continue;
      let progressed = false;
      await readGenerationEvents(res.body, (ev) => {
        progressed = true;
        apply(qc, id, ev);
      });
      if (!running.has(id)) return; // `done` arrived
      if (progressed) attempt = 0; // a healthy stream that dropped: start the backoff over
    } catch {
      if (signal.aborted) return;
    }
  }
  if (signal.aborted) return;
  // Could not (re)attach: show whatever the server stored, which may say why.
  updateLive(id, (d) => void (d.reconnecting = false), true);
  dropLive(id);
  await qc.invalidateQueries({ queryKey: qk.conversation(conversationId) });
}

/** 0.5 s, 1 s, 2 s … up to 10 s with jitter; returns early when the browser comes back online. */
function backoff(attempt: number, signal: AbortSignal): Promise<void> {
  const ms = Math.min(10_000, 500 * 2 ** (attempt - 1)) * (0.8 + Math.random() * 0.4);
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(t);
      window.removeEventListener('online', done);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const t = setTimeout(done, ms);
    window.addEventListener('online', done);
    signal.addEventListener('abort', done);
  });
}
