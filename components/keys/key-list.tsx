'use client';
// The account's keys: type, status, last use, the last 7 days' spend, and each cap as a meter of what the key spent
// in the cap's current period; edit (description, expiry, caps) and revoke (after a confirmation). The key the app
// chats with is marked and cannot be revoked here. Metadata only: the server never sends a secret again.
// data-testid: key-list, key-row (data-id, data-revoked, data-type), key-meter (data-currency, data-value, data-max),
// edit-key, revoke-key, edit-key-dialog, edit-key-submit, edit-key-error, confirm-dialog, confirm-button.
import { useTranslations } from 'use-intl';
import { type FormEvent, useId, useState } from 'react';
import { capError, KeyFields, type KeyFormValues, toLimits } from '@/components/keys/key-form.tsx';
import { useRevokeKey, useUpdateKey } from '@/components/keys/queries.ts';
import { Alert } from '@/components/ui/alert.tsx';
import { Button } from '@/components/ui/button.tsx';
import { ConfirmDialog } from '@/components/ui/confirm-dialog.tsx';
import { Dialog } from '@/components/ui/dialog.tsx';
import { DataTable, TD } from '@/components/ui/table.tsx';
import { useToast } from '@/components/ui/toast.tsx';
import type { AppApiKey } from '@/lib/wire.ts';
import { type Formats, useFormat } from '@/components/i18n/format.ts';

function status(k: AppApiKey, t: ReturnType<typeof useTranslations<'keyList'>>, fmt: Formats): string {
  if (k.revokedAt !== null) return t('revoked', { date: fmt.date(k.revokedAt) });
  if (k.expiresAt !== null && k.expiresAt <= Date.now()) return t('expired', { date: fmt.date(k.expiresAt) });
  return k.expiresAt === null ? t('active') : t('activeUntil', { date: fmt.date(k.expiresAt) });
}

function CapMeter({ currency, spent, max, period }: { currency: 'USD' | 'DIEM'; spent: number; max: number; period: string }) {
  const t = useTranslations('keyList');
  const fmt = useFormat();
  const show = currency === 'USD' ? fmt.usd : (v: number) => `${fmt.diem(v)} DIEM`;
  const ratio = max > 0 ? Math.min(1, spent / max) : 1;
  return (
    <div className="relative flex min-w-36 flex-col gap-1" data-testid="key-meter" data-currency={currency} data-value={spent} data-max={max}>
      <span className="text-xs">
        {t('meter', { spent: show(spent), max: show(max) })}
        <span className="text-muted-foreground">{period}</span>
      </span>
      <meter
        min={0}
        max={max || 1}
        high={max * 0.8}
        optimum={0}
        value={Math.min(spent, max)}
        aria-label={t('meterLabel', { currency, spent: show(spent), max: show(max), period })}
        className="sr-only"
      />
      <div className="h-1.5 overflow-hidden rounded-full bg-muted" aria-hidden="true">
        <div className={ratio >= 0.8 ? 'h-full rounded-full bg-error' : 'h-full rounded-full bg-primary'} style={{ width: `${ratio * 100}%` }} />
      </div>
    </div>
  );
}

function Caps({ k }: { k: AppApiKey }) {
  const t = useTranslations('keyList');
  const tf = useTranslations('keyForm');
  const models = k.models && <span className="block text-xs text-muted-foreground">{t('only', { models: k.models.join(', ') })}</span>;
  if (!k.cap)
    return (
      <>
        <span className="text-muted-foreground">{t('noCap')}</span>
        {models}
      </>
    );
  const period = tf(`periods.${k.cap.period}`);
  return (
    <div className="flex flex-col gap-2">
      {k.cap.usd !== null && <CapMeter currency="USD" spent={k.cap.spentUsd} max={k.cap.usd} period={period} />}
      {k.cap.diem !== null && <CapMeter currency="DIEM" spent={k.cap.spentDiem} max={k.cap.diem} period={period} />}
    </div>
  );
}

const valuesOf = (k: AppApiKey): KeyFormValues => ({
  description: k.description,
  expires: k.expiresAt === null ? '' : new Date(k.expiresAt).toISOString().slice(0, 10),
  usd: k.cap?.usd == null ? '' : String(k.cap.usd),
  diem: k.cap?.diem == null ? '' : String(k.cap.diem),
  period: k.cap?.period ?? 'EPOCH',
  models: k.models?.join(', ') ?? '',
});

function EditDialog({ k, descriptionMax, onClose }: { k: AppApiKey; descriptionMax: number; onClose: () => void }) {
  const t = useTranslations('keyList');
  const tf = useTranslations('keyForm');
  const id = useId();
  const [values, setValues] = useState(() => valuesOf(k));
  const update = useUpdateKey();
  const toast = useToast();
  const invalid = capError(values.usd) || capError(values.diem);
  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    if (invalid) return;
    const before = valuesOf(k);
    update.mutate(
      {
        id: k.id,
        body: {
          description: values.description.trim(),
          // Unchanged: left out, so an expiry already in the past is not refused as "must be in the future".
          ...(values.expires !== before.expires ? { expiresAt: values.expires || null } : {}),
          ...toLimits(values),
        },
      },
      {
        onSuccess: () => {
          toast({ message: t('updated'), tone: 'success' });
          onClose();
        },
      },
    );
  };
  return (
    <Dialog
      open
      onClose={onClose}
      title={t('editTitle', { name: k.description || tf('unnamed') })}
      testId="edit-key-dialog"
      className="w-[min(36rem,calc(100vw-2rem))]"
    >
      <form onSubmit={onSubmit} noValidate className="flex flex-col gap-4">
        <KeyFields idPrefix={`${id}-edit`} values={values} onChange={setValues} descriptionMax={descriptionMax} />
        {update.isError && <Alert data-testid="edit-key-error">{update.error.message}</Alert>}
        <div className="flex flex-wrap justify-end gap-2">
          <Button variant="secondary" onClick={onClose}>
            {t('cancel')}
          </Button>
          <Button type="submit" pending={update.isPending} disabled={Boolean(invalid)} data-testid="edit-key-submit">
            {t('save')}
          </Button>
        </div>
      </form>
    </Dialog>
  );
}

export function KeyList({ keys, descriptionMax }: { keys: AppApiKey[]; descriptionMax: number }) {
  const t = useTranslations('keyList');
  const tf = useTranslations('keyForm');
  const fmt = useFormat();
  const [editing, setEditing] = useState<AppApiKey | null>(null);
  const [revoking, setRevoking] = useState<AppApiKey | null>(null);
  const revoke = useRevokeKey();
  const toast = useToast();
  return (
    <>
      <DataTable
        label={t('label')}
        caption={t('caption')}
        testId="key-list"
        columns={[
          { label: t('key') },
          { label: t('status') },
          { label: t('lastUsed') },
          { label: t('last7'), numeric: true },
          { label: t('caps') },
          { label: t('actions') },
        ]}
      >
        {keys.map((k) => {
          const live = k.revokedAt === null;
          return (
            <tr key={k.id} className="border-t border-border align-top" data-testid="key-row" data-id={k.id} data-revoked={!live} data-type={k.type}>
              <th scope="row" className={`${TD} text-left font-medium`}>
                {k.description || tf('unnamed')}
                <span className="block text-xs font-normal text-muted-foreground">
                  {t('created', { type: k.type === 'ADMIN' ? tf('admin') : tf('inference'), date: fmt.date(k.createdAt) })}
                  {k.browserApp && t('browserApp')}
                </span>
              </th>
              <td className={TD}>{status(k, t, fmt)}</td>
              <td className={TD}>{k.lastUsedAt === null ? t('never') : fmt.date(k.lastUsedAt)}</td>
              <td className={`${TD} text-right tabular-nums`}>{fmt.spend(k.lastSevenDays.usd, k.lastSevenDays.diem)}</td>
              <td className={TD}>
                <Caps k={k} />
              </td>
              <td className={TD}>
                {live && (
                  <div className="flex gap-1">
                    <Button
                      size="sm"
                      variant="ghost"
                      onClick={() => setEditing(k)}
                      data-testid="edit-key"
                      aria-label={t('editLabel', { name: k.description || t('unnamedLower') })}
                    >
                      {t('edit')}
                    </Button>
                    {!k.browserApp && (
                      <Button
                        size="sm"
                        variant="ghost"
                        className="text-error"
                        onClick={() => setRevoking(k)}
                        data-testid="revoke-key"
                        aria-label={t('revokeLabel', { name: k.description || t('unnamedLower') })}
                      >
                        {t('revoke')}
                      </Button>
                    )}
                  </div>
                )}
              </td>
            </tr>
          );
        })}
      </DataTable>
      {editing && <EditDialog k={editing} descriptionMax={descriptionMax} onClose={() => setEditing(null)} />}
      <ConfirmDialog
        open={revoking !== null}
        title={t('revokeTitle')}
        message={t('revokeBody', { name: revoking?.description || tf('unnamed') })}
        confirmLabel={t('revokeConfirm')}
        pending={revoke.isPending}
        onCancel={() => setRevoking(null)}
        onConfirm={() => {
          if (!revoking) return;
          revoke.mutate(revoking.id, {
            onSuccess: () => {
              toast({ message: t('revokedToast'), tone: 'success' });
              setRevoking(null);
            },
            onError: (e) => toast({ message: t('revokeFailed', { error: e.message }), tone: 'error' }),
          });
        }}
      />
    </>
  );
}
