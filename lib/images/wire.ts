// The image mode's shapes (lib/images/app-routes.ts). Routes (JSON unless noted; writes need the CSRF token):
//   GET    /api/app/images/models                        → ImageModelsReport
//   GET    /api/app/images?cursor=&limit=&conversationId=&messageId= → ImagesPage (the gallery, newest first; a chat's
//          or a message's images, oldest first)
//   POST   /api/app/images/generate  GenerateImagesRequest → ImageTurnResponse (201) once the first image is made; the
//          other variants follow in the background into the same message (status 'streaming' until the last)
//   GET    /api/app/images/:id                           → { image: AppImage }
//   GET    /api/app/images/:id/file[?download=1]         → the image itself (ETag; download: Content-Disposition)
//   POST   /api/app/images/:id/vary      ImageActionRequest → ImageTurnResponse (201): same prompt and settings, a new seed
//   POST   /api/app/images/:id/upscale   ImageActionRequest → ImageTurnResponse (201)
//   POST   /api/app/images/:id/remove-background ImageActionRequest → ImageTurnResponse (201)
//   POST   /api/app/images/edit      EditImageRequest → ImageTurnResponse (201): a gallery image (sourceId) or a chat's
//          picture (image, a data: URL) edited by a prompt, with an optional painted mask; the result joins the gallery
//   DELETE /api/app/images/:id                           → 204
//
// In a chat, an image message is an assistant message whose attachments are type image/* references to its images
// (attachment id = image id; the chat's wire calls them documents, as it carries no bytes for them): the browser
// shows /api/app/images/<id>/file for each.
import type { AppConversation, AppMessage } from '../conversations/wire.ts';

export type ImageAction = 'generate' | 'vary' | 'upscale' | 'background-remove' | 'edit';
export type ImageModelKind = 'generate' | 'upscale' | 'background-remove' | 'edit';

export interface AppImageModel {
  id: string;
  name: string;
  description: string | null;
  /** A demo engine (no real image model behind it), as /models says. */
  demo: boolean;
  kind: ImageModelKind;
  /** The default of its kind. */
  isDefault: boolean;
  /** USD per image at the default size (generation adds per-step and per-size prices; see perStepUsd). */
  perImageUsd: number | null;
  perStepUsd: number | null;
  /** Generation only (0 for the others). */
  promptCharacterLimit: number;
  maxVariants: number;
  negativePrompt: boolean;
  defaultSteps: number;
  /** Sizes by aspect ratio (and resolution tier, when the model has tiers)… */
  aspectRatios: string[];
  resolutions: string[];
  defaultResolution: string | null;
  /** …or by width×height, when it has no ratios: the sizes it takes ("1024x1024"). */
  sizes: string[];
  defaultSize: string;
  /** Upscale only: the largest factor. */
  maxScale: number;
  /** Edit only: why a painted mask cannot be used (the model edits the whole picture), or null when it can. */
  maskRefusal: string | null;
}

export interface ImageModelsReport {
  models: AppImageModel[];
  /** GET /image/styles: the style presets a generation may name. */
  styles: string[];
  /** Why the image mode is not available here (remote mode, no image model), or null. */
  unavailable: string | null;
}

export interface AppImage {
  id: string;
  action: ImageAction;
  /** The image this one was made from (vary, upscale, background removal). */
  sourceId: string | null;
  conversationId: string | null;
  messageId: string | null;
  model: string;
  modelName: string;
  demo: boolean;
  prompt: string;
  negativePrompt: string | null;
  style: string | null;
  seed: number | null;
  /** A generation's variant (0-based) and how many were asked for together. */
  variant: number;
  variants: number;
  width: number;
  height: number;
  contentType: string;
  bytes: number;
  costUsd: number;
  costDiem: number;
  createdAt: number;
  url: string;
  downloadUrl: string;
}

export interface ImagesPage {
  images: AppImage[];
  nextCursor: string | null;
}

export interface GenerateImagesRequest {
  /** The chat the images go into (create it first with POST /conversations). */
  conversationId: string;
  /** The message this turn follows: the branch's last message, or null to start the chat. */
  parentId: string | null;
  model: string;
  prompt: string;
  negativePrompt?: string;
  style?: string;
  /** A ratio (and tier) when the model has ratios… */
  aspectRatio?: string;
  resolution?: string;
  /** …else a size it takes. */
  width?: number;
  height?: number;
  /** 1 to the model's maxVariants (default 1); they appear one by one. */
  variants?: number;
  /** 1–999,999,995; variants use seed, seed+1, …; none: a random one. */
  seed?: number;
}

export interface ImageActionRequest {
  /** Put the result in this chat, after parentId (both, or neither: then it goes to the gallery only). */
  conversationId?: string;
  parentId?: string | null;
  /** Upscale: 2 (default) or 4. */
  scale?: number;
}

/** A turn of the image mode: the images made so far, and (in a chat) its two messages and the chat as it now is. */
export interface ImageTurnResponse {
  images: AppImage[];
  conversation?: AppConversation;
  user?: AppMessage;
  assistant?: AppMessage;
}

/** POST /api/app/images/edit (lib/images/app-edit.ts). */
export interface EditImageRequest {
  sourceId?: string;
  /** A data: URL (PNG, JPEG, WebP, GIF). */
  image?: string;
  prompt: string;
  model?: string;
  /** A data: URL, white where the edit applies. */
  mask?: string;
}
