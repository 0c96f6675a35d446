// Shown instead of the chat when its conversation cannot be loaded: gone (deleted, or never this user's) or a failure.
import { useTranslations } from 'use-intl';
import Link from 'next/link';

export function ChatMissing({ notFound, retry }: { notFound: boolean; retry: () => void }) {
  const t = useTranslations('chat.missing');
  return (
    <div role="alert" className="flex flex-1 flex-col items-center justify-center gap-3 p-6 text-center">
      <p className="text-lg font-semibold">{notFound ? t('notFound') : t('failed')}</p>
      {notFound ? (
        <Link href="/" className="text-primary underline">
          {t('newChat')}
        </Link>
      ) : (
        <button type="button" onClick={retry} className="text-primary underline">
          {t('retry')}
        </button>
      )}
    </div>
  );
}
