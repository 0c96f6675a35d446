'use client';
// The 404 page's words (app/not-found.tsx): inside the app's own frame, so the way back is there.
// data-testid: not-found-page.
import Link from 'next/link';
import { useTranslations } from 'use-intl';
import { buttonClasses } from '@/components/ui/button.tsx';

export function NotFoundBody() {
  const t = useTranslations('notFound');
  return (
    <div className="grid flex-1 place-items-center p-6" data-testid="not-found-page">
      <div className="max-w-md text-center">
        <h1 className="text-2xl font-semibold">{t('title')}</h1>
        <p className="mt-2 text-sm text-muted-foreground">{t('body')}</p>
        <Link href="/" className={buttonClasses('primary', 'sm', 'mt-4')}>
          {t('newChat')}
        </Link>
      </div>
    </div>
  );
}
