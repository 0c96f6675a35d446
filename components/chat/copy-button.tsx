// Copies a message's text; the icon turns into a check for a moment so the copy is visible.
import { useEffect, useState } from 'react';
import { useTranslations } from 'use-intl';
import { IconButton } from '@/components/ui/icon-button.tsx';
import { CheckIcon, CopyIcon } from './icons.tsx';

export function CopyButton({ text, label }: { text: string; label?: string }) {
  const t = useTranslations('chat.message');
  const [copied, setCopied] = useState(false);
  useEffect(() => {
    if (!copied) return;
    const t = setTimeout(() => setCopied(false), 1500);
    return () => clearTimeout(t);
  }, [copied]);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setCopied(true);
    } catch {
      // Clipboard refused (insecure context or permission): nothing sensible to show beyond not ticking.
    }
  };
  return (
    <IconButton size="sm" label={copied ? t('copied') : (label ?? t('copy'))} onClick={copy} data-testid="copy-button">
      {copied ? <CheckIcon /> : <CopyIcon />}
    </IconButton>
  );
}
