'use client';
// "Use this key": the same request as curl, the openai client in JavaScript and in Python, with this server's base
// URL filled in. The key is the variable LAGOON_API_KEY, or, right after creation, the new secret itself.
// data-testid: snippets (data-testid given), snippet-tab-curl|js|python, snippet-code (data-lang).
import { useTranslations } from 'use-intl';
import { useId, useState } from 'react';
import { CopyButton } from '@/components/chat/copy-button.tsx';
import { cn } from '@/components/ui/cn.ts';

export type SnippetLang = 'curl' | 'js' | 'python';
const TABS: { lang: SnippetLang; name: string }[] = [
  { lang: 'curl', name: 'curl' },
  { lang: 'js', name: 'JavaScript' },
  { lang: 'python', name: 'Python' },
];

/** This server's public API, as the browser reaches it. */
export const apiBaseUrl = (): string => `${window.location.origin}/api/v1`;

export function snippet(lang: SnippetLang, base: string, model: string, key: string | null): string {
  const q = (s: string) => JSON.stringify(s);
  if (lang === 'curl') {
    const auth = key ? `Bearer ${key}` : 'Bearer $LAGOON_API_KEY';
    return [
      `curl ${base}/chat/completions \\`,
      `  -H "Authorization: ${auth}" \\`,
      `  -H "Content-Type: application/json" \\`,
      `  -d '${JSON.stringify({ model, messages: [{ role: 'user', content: 'Hello!' }] })}'`,
    ].join('\n');
  }
  if (lang === 'js') {
    // The user's own program reads its key from its environment; spelled in parts so this file never reads ours.
    const envKey = ['process', 'env', 'LAGOON_API_KEY'].join('.');
    return [
      "import OpenAI from 'openai';",
      '',
      `const client = new OpenAI({ baseURL: ${q(base)}, apiKey: ${key ? q(key) : envKey} });`,
      'const completion = await client.chat.completions.create({',
      `  model: ${q(model)},`,
      "  messages: [{ role: 'user', content: 'Hello!' }],",
      '});',
      'console.log(completion.choices[0].message.content);',
    ].join('\n');
  }
  return [
    'import os',
    'from openai import OpenAI',
    '',
    `client = OpenAI(base_url=${q(base)}, api_key=${key ? q(key) : 'os.environ["LAGOON_API_KEY"]'})`,
    'completion = client.chat.completions.create(',
    `    model=${q(model)},`,
    '    messages=[{"role": "user", "content": "Hello!"}],',
    ')',
    'print(completion.choices[0].message.content)',
  ].join('\n');
}

export function Snippets({ model, secret, testId }: { model: string; secret: string | null; testId: string }) {
  const t = useTranslations('snippets');
  const [lang, setLang] = useState<SnippetLang>('curl');
  const id = useId();
  const code = snippet(lang, apiBaseUrl(), model, secret);
  return (
    <div className="flex min-w-0 flex-col gap-2" data-testid={testId}>
      <div role="tablist" aria-label={t('language')} className="inline-flex self-start rounded-lg border border-border bg-muted p-0.5">
        {TABS.map((tab) => (
          <button
            key={tab.lang}
            type="button"
            role="tab"
            id={`${id}-${tab.lang}`}
            aria-selected={lang === tab.lang}
            aria-controls={`${id}-panel`}
            tabIndex={lang === tab.lang ? 0 : -1}
            onClick={() => setLang(tab.lang)}
            onKeyDown={(e) => {
              const i = TABS.findIndex((x) => x.lang === lang);
              const next = e.key === 'ArrowRight' ? TABS[(i + 1) % TABS.length] : e.key === 'ArrowLeft' ? TABS[(i + TABS.length - 1) % TABS.length] : null;
              if (!next) return;
              e.preventDefault();
              setLang(next.lang);
              document.getElementById(`${id}-${next.lang}`)?.focus();
            }}
            className={cn(
              'rounded-md px-3 py-1.5 text-sm font-medium',
              lang === tab.lang ? 'bg-background text-foreground shadow-sm' : 'text-muted-foreground hover:text-foreground',
            )}
            data-testid={`snippet-tab-${tab.lang}`}
          >
            {tab.name}
          </button>
        ))}
      </div>
      <div id={`${id}-panel`} role="tabpanel" aria-labelledby={`${id}-${lang}`} className="relative min-w-0 rounded-lg border border-border bg-muted">
        <pre className="overflow-x-auto p-3 pr-12 text-xs leading-relaxed" tabIndex={0} role="region" aria-label={t('example', { lang })}>
          <code data-testid="snippet-code" data-lang={lang}>
            {code}
          </code>
        </pre>
        <div className="absolute right-1.5 top-1.5">
          <CopyButton text={code} label={t('copy', { lang })} />
        </div>
      </div>
    </div>
  );
}
