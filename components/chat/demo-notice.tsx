// The demo model talks nonsense by design (random weights, so the whole system runs offline). Said where the model
// is picked (the headline only) and in an empty chat, with the way to a real model: for the operator, the README's
// recipe and the models page where one is added in the browser; for everyone else, another model or the operator.
import { useTranslations } from 'use-intl';
import Link from 'next/link';
import type { AppModel } from '@/lib/wire.ts';

/** A command, the same in every language. */
const ADD_MODEL_COMMAND = 'npx lagoon model add';

export function DemoNotice({ model, isAdmin, compact = false }: { model: AppModel; isAdmin: boolean; compact?: boolean }) {
  const t = useTranslations('chat.demo');
  if (!model.demo) return null;
  const link = 'font-medium text-primary underline underline-offset-4';
  return (
    <div
      role="note"
      data-testid={compact ? 'demo-notice-picker' : 'demo-notice'}
      className={`rounded-lg border border-primary/40 bg-primary/5 text-left text-foreground ${compact ? 'mt-1.5 px-2 py-1.5 text-xs' : 'px-3 py-2.5 text-sm'}`}
    >
      <p className="font-medium">{t('headline')}</p>
      {/* In the picker the headline is enough; the way out is said once, in the empty chat. */}
      {/* The catalogue's description is written for the operator (it repeats the warning and points at the README). */}
      {!compact && isAdmin && model.description && <p className="mt-1 text-muted-foreground">{model.description}</p>}
      {!compact &&
        (isAdmin ? (
          // The operator connects models: the README's recipe and the models page are theirs.
          <p className="mt-1">
            {t('adminBefore')}
            <code className="rounded bg-muted px-1">{ADD_MODEL_COMMAND}</code>
            {t('adminAfter')}{' '}
            <Link href="/operator/models" className={link} data-testid="demo-notice-operator-link">
              {t('addModel')}
            </Link>
          </p>
        ) : (
          <p className="mt-1">{t('user')}</p>
        ))}
    </div>
  );
}
