// The browser app's backend: one object per server process holding every app route handler and the live
// generations. The lean HTTP layer serves its routes under /api/app (lib/http/app.ts has the table).
import type { AppConfig } from '../config.ts';
import type { Service } from '../service.ts';
import { authRoutes } from './routes/auth.ts';
import { chatRoutes } from './chat/routes.ts';
import { conversationRoutes } from './routes/conversations.ts';
import { catalogueRoutes } from './routes/catalogue.ts';
import { walletRoutes } from './routes/wallet.ts';
import { usageRoutes } from './routes/usage.ts';
import { rateLimitRoutes } from './routes/rate-limits.ts';
import { keyRoutes } from './routes/keys.ts';
import { apiKeyRoutes } from './routes/api-keys.ts';
import { billingRoutes } from './routes/billing.ts';
import { limitRoutes } from './routes/limits.ts';
import { operatorRoutes } from './routes/operator.ts';
import { operatorModelRoutes } from './routes/operator-models.ts';
import { accountSettingsRoutes } from './routes/account-settings.ts';
import { videoRoutes } from './routes/video.ts';
import { audioRoutes } from './routes/audio.ts';
import { imageRoutes } from './routes/images.ts';
import { characterRoutes } from './routes/characters.ts';
import type { AppDeps } from './deps.ts';

export interface AppBackend {
  routes: AppRoutes;
  /** Stops live generations, keeping what they produced; called on shutdown. */
  close(): Promise<void>;
}

export type AppRoutes = ReturnType<typeof authRoutes> &
  ReturnType<typeof conversationRoutes> &
  ReturnType<typeof catalogueRoutes> &
  ReturnType<typeof walletRoutes> &
  ReturnType<typeof usageRoutes> &
  ReturnType<typeof rateLimitRoutes> &
  ReturnType<typeof keyRoutes> &
  ReturnType<typeof apiKeyRoutes> &
  ReturnType<typeof billingRoutes> &
  ReturnType<typeof limitRoutes> &
  ReturnType<typeof operatorRoutes> &
  ReturnType<typeof operatorModelRoutes> &
  ReturnType<typeof accountSettingsRoutes> &
  ReturnType<typeof videoRoutes> &
  ReturnType<typeof audioRoutes> &
  ReturnType<typeof characterRoutes> &
  Omit<ReturnType<typeof imageRoutes>, 'close'> &
  Omit<ReturnType<typeof chatRoutes>, 'close'>;

export function createAppBackend(svc: Service, app: AppConfig = svc.config.app): AppBackend {
  const deps: AppDeps = { svc, app };
  const chat = chatRoutes(deps);
  const { close, ...chatHandlers } = chat;
  const { close: closeImages, ...imageHandlers } = imageRoutes(deps);
  return {
    routes: {
      ...authRoutes(deps),
      ...conversationRoutes(deps),
      ...catalogueRoutes(deps),
      ...walletRoutes(deps),
      ...usageRoutes(deps),
      ...rateLimitRoutes(deps),
      ...keyRoutes(deps),
      ...apiKeyRoutes(deps),
      ...billingRoutes(deps),
      ...limitRoutes(deps),
      ...operatorRoutes(deps),
      ...operatorModelRoutes(deps),
      ...accountSettingsRoutes(deps),
      ...videoRoutes(deps),
      ...audioRoutes(deps),
      ...characterRoutes(deps),
      ...imageHandlers,
      ...chatHandlers,
    },
    close: async () => {
      await Promise.all([close(), closeImages()]);
    },
  };
}
