// What the transcript lists: the branch's messages, then (while a send is in flight or failed) the unsent turn
// and the failure with its retry.
import type { AppError, AppMessage } from '@/lib/wire.ts';

export interface PendingAttachment {
  id: string;
  name: string;
  size: number;
  kind: 'image' | 'document';
  previewUrl?: string;
}

export type TranscriptRow =
  | { kind: 'message'; key: string; message: AppMessage; siblingIndex: number; siblingCount: number }
  | { kind: 'pending'; key: string; content: string; attachments: PendingAttachment[]; failed: boolean }
  | { kind: 'failure'; key: string; error: Pick<AppError, 'status' | 'code' | 'message' | 'retryAfter'>; since: number; retry?: () => void };
