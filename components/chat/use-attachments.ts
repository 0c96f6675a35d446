// The files waiting in the composer: checked against the limits as they are added (refusals explained at once),
// read into data: URLs (images also use theirs as the thumbnail), removable until sent.
import { useTranslations } from 'use-intl';
import { useCallback, useMemo, useRef, useState } from 'react';
import type { AttachmentLimits, UploadAttachment } from '@/lib/wire.ts';
import { checkFiles } from './attachment-rules.ts';
import { displayFileName } from './format.ts';
import { audioTooLong } from '@/components/audio/audio-duration.ts';

export interface DraftAttachment {
  id: string;
  name: string;
  type: string;
  size: number;
  kind: 'image' | 'document';
  previewUrl?: string;
  dataUrl: Promise<string>;
}

export interface Attachments {
  items: DraftAttachment[];
  errors: string[];
  add(files: File[]): void;
  remove(id: string): void;
  clear(): void;
  dismissErrors(): void;
}

function readDataUrl(file: File, type: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result).replace(/^data:[^;,]*(;base64,)/, `data:${type}$1`));
    reader.onerror = () => reject(reader.error ?? new Error(file.name));
    reader.readAsDataURL(file);
  });
}

export async function toUploads(items: DraftAttachment[]): Promise<UploadAttachment[]> {
  return Promise.all(items.map(async (a) => ({ name: a.name, type: a.type, dataUrl: await a.dataUrl })));
}

export function useAttachments(limits: AttachmentLimits | undefined, vision: boolean): Attachments {
  const [items, setItems] = useState<DraftAttachment[]>([]);
  const t = useTranslations('attachments');
  const ta = useTranslations('audioErrors');
  const [errors, setErrors] = useState<string[]>([]);
  const count = useRef(0);
  count.current = items.length;

  const add = useCallback(
    (files: File[]) => {
      if (!files.length) return;
      if (!limits) {
        setErrors([t('notYet')]);
        return;
      }
      const checked = checkFiles(files, count.current, limits, vision, t);
      setErrors(checked.errors);
      const added = checked.accepted.map(({ file, type, kind }) => {
        const item: DraftAttachment = { id: crypto.randomUUID(), name: file.name, type, size: file.size, kind, dataUrl: readDataUrl(file, type) };
        item.dataUrl.then(
          (url) => kind === 'image' && setItems((list) => list.map((x) => (x.id === item.id ? { ...x, previewUrl: url } : x))),
          () => {
            setErrors((e) => [...e, t('unreadable', { name: `“${displayFileName(file.name)}”` })]);
            setItems((list) => list.filter((x) => x.id !== item.id));
          },
        );
        // Audio over the length limit is taken back as soon as the browser has read how long it is.
        if (type.startsWith('audio/') && limits.maxAudioSeconds)
          void audioTooLong(file, displayFileName(file.name), limits.maxAudioSeconds, (values) => ta('audioTooLong', values)).then((why) => {
            if (!why) return;
            setErrors((e) => [...e, why]);
            setItems((list) => list.filter((x) => x.id !== item.id));
          });
        return item;
      });
      count.current += added.length;
      setItems((list) => [...list, ...added]);
    },
    [limits, vision, t, ta],
  );
  const remove = useCallback((id: string) => setItems((list) => list.filter((x) => x.id !== id)), []);
  const clear = useCallback(() => {
    setItems([]);
    setErrors([]);
  }, []);
  const dismissErrors = useCallback(() => setErrors([]), []);
  return useMemo(() => ({ items, errors, add, remove, clear, dismissErrors }), [items, errors, add, remove, clear, dismissErrors]);
}
