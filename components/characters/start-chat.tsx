'use client';
// "Start chat", on a character's page and on its card in the browse grid: creates the conversation with the character
// (the server opens it with the character's first message) and goes to it. One behaviour wherever a chat starts.
import { useTranslations } from 'use-intl';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useRouter } from 'next/navigation';
import { call, qk } from '@/components/api/client.ts';
import { Alert } from '@/components/ui/alert.tsx';
import { Button, type ButtonSize, type ButtonVariant } from '@/components/ui/button.tsx';
import { cn } from '@/components/ui/cn.ts';
import { ChatIcon } from '@/components/ui/icons.tsx';

interface Props {
  slug: string;
  name: string;
  variant?: ButtonVariant;
  size?: ButtonSize;
  /** Classes of the wrapper (the button fills its width). */
  className?: string;
  testId?: string;
}

export function StartChat({ slug, name, variant = 'primary', size = 'lg', className, testId = 'start-chat' }: Props) {
  const t = useTranslations('characters');
  const router = useRouter();
  const qc = useQueryClient();
  const start = useMutation({
    mutationFn: () => call('POST /conversations', { body: { characterSlug: slug } }),
    onSuccess: (conv) => {
      void qc.invalidateQueries({ queryKey: qk.conversations });
      router.push(`/c/${encodeURIComponent(conv.id)}`);
    },
  });
  return (
    <div className={cn('flex flex-col gap-2', className)}>
      <Button variant={variant} size={size} pending={start.isPending} onClick={() => start.mutate()} data-testid={testId}>
        <ChatIcon className="size-4" /> {t('startChat')}
        <span className="sr-only">{t('startWith', { name })}</span>
      </Button>
      {start.isError && (
        <Alert title={t('startFailed')} data-testid="start-chat-error">
          {start.error.message}
        </Alert>
      )}
    </div>
  );
}
