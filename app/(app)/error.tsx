'use client';
// A page of the signed-in app failed to render: say so and offer a retry, keeping the sidebar usable.
import { useTranslations } from 'use-intl';
import { Alert } from '@/components/ui/alert.tsx';
import { Button } from '@/components/ui/button.tsx';

export default function AppError({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  const t = useTranslations('appError');
  return (
    <div className="grid flex-1 place-items-center p-6">
      <Alert
        title={t('title')}
        className="max-w-md"
        action={
          <Button size="sm" variant="secondary" onClick={reset}>
            {t('tryAgain')}
          </Button>
        }
      >
        {error.digest ? t('reference', { digest: error.digest }) : error.message}
      </Alert>
    </div>
  );
}
