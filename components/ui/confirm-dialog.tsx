'use client';
// "Are you sure?" for destructive actions. Cancel holds the initial focus so Enter never destroys by accident.
import { useTranslations } from 'use-intl';
import type { ReactNode } from 'react';
import { Button } from '@/components/ui/button.tsx';
import { Dialog } from '@/components/ui/dialog.tsx';

export interface ConfirmDialogProps {
  open: boolean;
  title: string;
  message: ReactNode;
  confirmLabel: string;
  tone?: 'danger' | 'primary';
  pending?: boolean;
  onConfirm: () => void;
  onCancel: () => void;
}

export function ConfirmDialog({ open, title, message, confirmLabel, tone = 'danger', pending, onConfirm, onCancel }: ConfirmDialogProps) {
  const tc = useTranslations('common');
  return (
    <Dialog
      open={open}
      onClose={onCancel}
      title={title}
      description={message}
      testId="confirm-dialog"
      footer={
        <>
          <Button variant="secondary" onClick={onCancel} autoFocus>
            {tc('cancel')}
          </Button>
          <Button variant={tone} onClick={onConfirm} pending={pending} data-testid="confirm-button">
            {confirmLabel}
          </Button>
        </>
      }
    />
  );
}
