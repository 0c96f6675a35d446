// What an image card can do beyond download and copy, given by whoever shows it: in a chat, the results go into the
// chat after its last message; in the gallery, into the gallery. `busy` while one of these runs (one at a time).
import { createContext, useContext } from 'react';
import type { AppRouteKey } from '@/lib/http/app-route-map.ts';
import type { AppImage } from '@/lib/images/wire.ts';

export type ImageJob = 'vary' | 'upscale' | 'remove-background';

/** The route that runs each job on an image. */
export const IMAGE_JOB_ROUTE = {
  vary: 'POST /images/:id/vary',
  upscale: 'POST /images/:id/upscale',
  'remove-background': 'POST /images/:id/remove-background',
} as const satisfies Record<ImageJob, AppRouteKey>;

export interface ImageActions {
  run(job: ImageJob, image: AppImage): void;
  /** The gallery only. */
  remove?(image: AppImage): void;
  /** The gallery only: opens the editor ("Edit this image"). */
  edit?(image: AppImage): void;
  /** The image and job running now, if any. */
  running: { id: string; job: ImageJob } | null;
  /** Another answer or image is being made in this chat: no new work meanwhile. */
  blocked: boolean;
}

export const ImageActionsContext = createContext<ImageActions | null>(null);

export const useImageActions = (): ImageActions | null => useContext(ImageActionsContext);
