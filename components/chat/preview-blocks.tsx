'use client';
// Code blocks an answer can show as more than code (Streamdown custom renderers): a ```mermaid block is drawn as a
// diagram, a ```html block gets a Preview. Both are drawn in a sandboxed frame (sandbox-frame.tsx), and only once the
// fence is closed: while the block streams it is plain code, so nothing is drawn, again and again, on the main thread.
import { useTranslations } from 'use-intl';
import { useEffect, useId, useRef, useState } from 'react';
import { CodeBlock, CodeBlockCopyButton, type CustomRenderer, type CustomRendererProps } from 'streamdown';
import { SandboxFrame } from './sandbox-frame.tsx';

const tab = (on: boolean) =>
  `rounded-md px-2 py-1 text-xs font-medium ${on ? 'bg-accent text-foreground' : 'text-muted-foreground hover:bg-accent hover:text-foreground'}`;

function Code({ code, language, isIncomplete }: CustomRendererProps) {
  const t = useTranslations('chat.preview');
  const root = useRef<HTMLDivElement>(null);
  // A long line scrolls the code sideways: the scrolling part takes the keyboard focus, so it can be scrolled without
  // a mouse (Streamdown's block has no prop for it, and mounts that part late, once its highlighter has loaded).
  useEffect(() => {
    const el = root.current;
    if (!el) return;
    const mark = () => {
      for (const s of el.querySelectorAll<HTMLElement>('[data-streamdown="code-block-body"], .overflow-x-auto')) {
        if (s.tabIndex === 0) continue;
        s.tabIndex = 0;
        s.setAttribute('role', 'region');
        s.setAttribute('aria-label', t('code', { language }));
      }
    };
    mark();
    const watch = new MutationObserver(mark);
    watch.observe(el, { childList: true, subtree: true });
    return () => watch.disconnect();
  }, [language, t]);
  return (
    <div ref={root}>
      <CodeBlock code={code} language={language} isIncomplete={isIncomplete}>
        <CodeBlockCopyButton />
      </CodeBlock>
    </div>
  );
}

function MermaidBlock(props: CustomRendererProps) {
  const t = useTranslations('chat.preview');
  const [showCode, setShowCode] = useState(false);
  if (props.isIncomplete) return <Code {...props} />;
  return (
    <div className="space-y-1" data-testid="mermaid-block">
      <div className="flex justify-end gap-1">
        <button type="button" className={tab(!showCode)} aria-pressed={!showCode} onClick={() => setShowCode(false)}>
          {t('diagram')}
        </button>
        <button type="button" className={tab(showCode)} aria-pressed={showCode} onClick={() => setShowCode(true)}>
          {t('showCode')}
        </button>
      </div>
      {showCode ? <Code {...props} /> : <SandboxFrame kind="mermaid" source={props.code} title={t('diagram')} />}
    </div>
  );
}

function HtmlBlock(props: CustomRendererProps) {
  const t = useTranslations('chat.preview');
  const [preview, setPreview] = useState(false);
  const id = useId();
  return (
    <div className="space-y-1" data-testid="html-block">
      <Code {...props} />
      {!props.isIncomplete && (
        <>
          <button type="button" className={tab(preview)} aria-pressed={preview} aria-controls={preview ? id : undefined} onClick={() => setPreview((p) => !p)}>
            {t('preview')}
          </button>
          {preview && (
            <div id={id}>
              <SandboxFrame kind="html" source={props.code} title={t('htmlPreview')} />
            </div>
          )}
        </>
      )}
    </div>
  );
}

export const previewRenderers: CustomRenderer[] = [
  { language: 'mermaid', component: MermaidBlock },
  { language: 'html', component: HtmlBlock },
];
