'use client';
// One private chat, opened in the page: its messages (decrypted here), the composer, and what the attestation proves,
// said plainly. A new chat is made (its title sealed) with its first message.
// data-testid: private-attestation, private-model, private-message (data-role), private-input, private-send,
// private-error, private-export, private-delete.
import { useTranslations } from 'use-intl';
import { useEffect, useRef, useState } from 'react';
import { call } from '@/components/api/client.ts';
import { Markdown } from '@/components/chat/markdown.tsx';
import { Alert } from '@/components/ui/alert.tsx';
import { Button } from '@/components/ui/button.tsx';
import { ConfirmDialog } from '@/components/ui/confirm-dialog.tsx';
import { SelectField } from '@/components/ui/fields.tsx';
import type { AppModel, PrivateAttestation } from '@/lib/wire.ts';
import { sealText } from './crypto.ts';
import { attest, type PlainMessage, privateTurn, TurnError } from './turn.ts';

const NO_CITATIONS: never[] = [];

export interface OpenChat {
  id: string | null;
  title: string;
  modelId: string;
  messages: PlainMessage[];
}

/** What the attestation proves, in the user's words. */
function AttestationNote({ a }: { a: PrivateAttestation | undefined }) {
  const t = useTranslations('private');
  if (!a) return null;
  return (
    <p className="text-xs text-muted-foreground" data-testid="private-attestation" data-verified={String(a.verified)}>
      {a.verified ? t('attested', { provider: a.teeProvider, address: a.signingAddress }) : t('notAttested', { key: a.signingAddress.slice(0, 10) })}{' '}
      <span data-testid="private-no-share">{t('noShare')}</span>
    </p>
  );
}

function exportMarkdown(chat: OpenChat, t: ReturnType<typeof useTranslations<'private'>>) {
  const text = [`# ${chat.title}`, ...chat.messages.map((m) => `## ${m.role === 'user' ? t('you') : t('assistant')}\n\n${m.content}`)].join('\n\n');
  const url = URL.createObjectURL(new Blob([text], { type: 'text/markdown' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = `${chat.title.replace(/[^\w -]+/g, '').slice(0, 60) || t('fileName')}.md`;
  a.click();
  URL.revokeObjectURL(url);
}

export function PrivateChat(props: { chat: OpenChat; models: AppModel[]; vault: CryptoKey; onSaved: (chat: OpenChat) => void; onDelete: () => void }) {
  const t = useTranslations('private');
  const tc = useTranslations('common');
  const { vault, models } = props;
  const [chat, setChat] = useState(props.chat);
  const [draft, setDraft] = useState('');
  const [live, setLive] = useState<string | null>(null);
  const [error, setError] = useState('');
  const [attestation, setAttestation] = useState<PrivateAttestation>();
  const [confirming, setConfirming] = useState(false);
  const abort = useRef<AbortController | null>(null);
  useEffect(() => setChat(props.chat), [props.chat]);
  useEffect(() => {
    if (!chat.modelId) return;
    attest(chat.modelId).then(setAttestation, (e: Error) => setError(e.message));
  }, [chat.modelId]);
  useEffect(() => () => abort.current?.abort(), []);

  async function send() {
    const question = draft.trim();
    if (!question || live !== null) return;
    setError('');
    setDraft('');
    setLive('');
    abort.current = new AbortController();
    try {
      let id = chat.id;
      let title = chat.title;
      if (!id) {
        title = question.split('\n')[0].slice(0, 80);
        id = (await call('POST /private/chats', { body: { title: await sealText(vault, title), modelId: chat.modelId } })).chat.id;
      }
      const answer = await privateTurn({
        chatId: id,
        model: chat.modelId,
        vault,
        history: chat.messages,
        question,
        onText: setLive,
        signal: abort.current.signal,
      });
      const next: OpenChat = {
        id,
        title,
        modelId: chat.modelId,
        messages: [...chat.messages, { role: 'user', content: question }, { role: 'assistant', content: answer }],
      };
      setChat(next);
      props.onSaved(next);
    } catch (e) {
      setDraft(question);
      setError(e instanceof TurnError ? (e.detail ?? t(e.reason)) : (e as Error).message);
    } finally {
      setLive(null);
    }
  }

  const e2eeModels = models.filter((m) => m.capabilities.e2ee);
  return (
    <section className="flex min-h-0 flex-1 flex-col gap-3" aria-label={t('chat')}>
      <div className="flex flex-wrap items-end gap-3">
        <SelectField
          id="private-model"
          data-testid="private-model"
          label={t('model')}
          className="w-64"
          value={chat.modelId}
          disabled={chat.id !== null}
          onChange={(e) => setChat({ ...chat, modelId: e.target.value })}
        >
          {e2eeModels.map((m) => (
            <option key={m.id} value={m.id}>
              {m.name}
            </option>
          ))}
        </SelectField>
        {chat.id && (
          <>
            <Button variant="secondary" size="sm" data-testid="private-export" onClick={() => exportMarkdown(chat, t)}>
              {t('export')}
            </Button>
            <Button variant="danger" size="sm" data-testid="private-delete" onClick={() => setConfirming(true)}>
              {tc('delete')}
            </Button>
          </>
        )}
      </div>
      <ConfirmDialog
        open={confirming}
        title={t('deleteTitle')}
        message={t('deleteMessage')}
        confirmLabel={tc('delete')}
        onConfirm={() => {
          setConfirming(false);
          props.onDelete();
        }}
        onCancel={() => setConfirming(false)}
      />
      <AttestationNote a={attestation} />
      <ol className="flex min-h-0 flex-1 flex-col gap-4 overflow-y-auto">
        {chat.messages.map((m, i) => (
          <li key={i} data-testid="private-message" data-role={m.role} className={m.role === 'user' ? 'self-end rounded-xl bg-muted px-3 py-2' : ''}>
            {m.role === 'user' ? <p className="whitespace-pre-wrap">{m.content}</p> : <Markdown text={m.content} citations={NO_CITATIONS} live={false} />}
          </li>
        ))}
        {live !== null && (
          <li data-testid="private-message" data-role="assistant" data-live="true">
            <Markdown text={live} citations={NO_CITATIONS} live />
          </li>
        )}
      </ol>
      {error && (
        <Alert tone="error" data-testid="private-error">
          {error}
        </Alert>
      )}
      {!e2eeModels.length && <Alert tone="info">{t('noModel')}</Alert>}
      <form
        className="flex gap-2"
        onSubmit={(e) => {
          e.preventDefault();
          void send();
        }}
      >
        <label htmlFor="private-input" className="sr-only">
          {t('message')}
        </label>
        <textarea
          id="private-input"
          data-testid="private-input"
          className="min-h-12 flex-1 resize-y rounded-lg border border-input bg-background px-3 py-2"
          placeholder={t('placeholder')}
          value={draft}
          onChange={(e) => setDraft(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter' && !e.shiftKey) {
              e.preventDefault();
              void send();
            }
          }}
        />
        <Button type="submit" data-testid="private-send" pending={live !== null} disabled={!chat.modelId}>
          {t('send')}
        </Button>
      </form>
    </section>
  );
}
