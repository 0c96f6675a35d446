'use client';
// A Mermaid diagram or an HTML preview, drawn in a sandboxed frame: /sandbox/render (lib/http/sandbox.ts) framed
// with sandbox="allow-scripts" and no allow-same-origin, so what runs there has an opaque origin and cannot reach
// this page, its cookies or the app's API. The frame gets its source by postMessage once it says it is ready (once:
// a frame that navigated elsewhere is never sent anything), and reports its height, which sizes it (clamped).
import { useEffect, useRef, useState } from 'react';

export type SandboxKind = 'mermaid' | 'html';

const TAG = 'lagoon-sandbox';
const MIN_HEIGHT = 32;
const MAX_HEIGHT = 1600;

interface Props {
  kind: SandboxKind;
  source: string;
  /** The frame's accessible name. */
  title: string;
}

const isDark = () => document.documentElement.classList.contains('dark');

export function SandboxFrame({ kind, source, title }: Props) {
  const frame = useRef<HTMLIFrameElement>(null);
  const [height, setHeight] = useState<number | null>(null);
  const [state, setState] = useState<'loading' | 'ok' | 'failed'>('loading');

  useEffect(() => {
    let sent = false;
    const onMessage = (e: MessageEvent) => {
      const win = frame.current?.contentWindow;
      if (!win || e.source !== win) return;
      const m = e.data as { [TAG]?: boolean; type?: string; height?: unknown; ok?: unknown } | null;
      if (m?.[TAG] !== true) return;
      if (m.type === 'ready' && !sent) {
        sent = true;
        // '*': the frame's origin is opaque, so no origin can name it; it is the frame this component made.
        win.postMessage({ [TAG]: true, type: 'render', kind, source, theme: isDark() ? 'dark' : 'light' }, '*');
      } else if (m.type === 'size' && typeof m.height === 'number' && Number.isFinite(m.height)) {
        setHeight(Math.min(MAX_HEIGHT, Math.max(MIN_HEIGHT, Math.ceil(m.height))));
      } else if (m.type === 'rendered') {
        setState(m.ok === true ? 'ok' : 'failed');
      }
    };
    window.addEventListener('message', onMessage);
    return () => window.removeEventListener('message', onMessage);
  }, [kind, source]);

  return (
    <iframe
      ref={frame}
      src="/sandbox/render"
      sandbox="allow-scripts"
      referrerPolicy="no-referrer"
      title={title}
      data-testid={`sandbox-${kind}`}
      data-state={state}
      style={{ height: height ?? 120 }}
      className={`block w-full rounded-lg border border-border ${kind === 'html' ? 'bg-white' : 'bg-transparent'}`}
    />
  );
}
