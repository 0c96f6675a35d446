// Inline editor for a user message: "Save & send" sends the new text as a sibling of the original, so the
// earlier branch stays reachable through ‹ n/m ›.
import { useTranslations } from 'use-intl';
import { useEffect, useId, useRef, useState } from 'react';
import { Button } from '@/components/ui/button.tsx';

interface Props {
  initial: string;
  onCancel: () => void;
  onSave: (text: string) => Promise<boolean>;
  /** How many files of the original go with the edited version. */
  keptAttachments: number;
}

export function MessageEditor({ initial, onCancel, onSave, keptAttachments }: Props) {
  const t = useTranslations('chat.editor');
  const [text, setText] = useState(initial);
  const [saving, setSaving] = useState(false);
  const ref = useRef<HTMLTextAreaElement>(null);
  const id = useId();
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    el.focus();
    el.setSelectionRange(el.value.length, el.value.length);
  }, []);
  // biome-ignore lint/correctness/useExhaustiveDependencies: the textarea is resized whenever its text changes
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    el.style.height = 'auto';
    el.style.height = `${Math.min(el.scrollHeight, 320)}px`;
  }, [text]);
  const save = async () => {
    if (!text.trim() || saving) return;
    setSaving(true);
    if (!(await onSave(text))) setSaving(false);
  };
  return (
    <div className="ml-auto w-full max-w-[85%] rounded-2xl border border-border bg-background p-2">
      <label className="sr-only" htmlFor={id}>
        {t('label')}
      </label>
      <textarea
        id={id}
        ref={ref}
        value={text}
        onChange={(e) => setText(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === 'Escape') onCancel();
          else if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) {
            e.preventDefault();
            void save();
          }
        }}
        rows={2}
        className="block w-full resize-none bg-transparent px-2 py-1 text-base text-foreground outline-none"
      />
      {keptAttachments > 0 && <p className="px-2 text-xs text-muted-foreground">{t('kept', { count: keptAttachments })}</p>}
      <div className="mt-1 flex justify-end gap-2">
        <Button variant="ghost" size="sm" onClick={onCancel}>
          {t('cancel')}
        </Button>
        <Button size="sm" onClick={save} disabled={!text.trim()} pending={saving}>
          {t('save')}
        </Button>
      </div>
    </div>
  );
}
