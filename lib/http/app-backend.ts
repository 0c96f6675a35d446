// The browser app's backend: one object per server process holding every app route handler and the live
// generations. The lean HTTP layer serves its routes under /api/app (lib/http/app.ts has the table).
import type { AppConfig } from '../config.ts';
import type { Service } from '../service.ts';
import { authRoutes } from '../account/app-auth.ts';
import { recoveryRoutes } from '../account/app-recovery.ts';
import { twoFactorRoutes } from '../account/app-two-factor.ts';
import { passkeyRoutes } from '../account/app-passkeys.ts';
import { ssoRoutes } from '../account/app-sso.ts';
import { signInMethodRoutes } from '../account/app-sign-in-methods.ts';
import { chatRoutes } from '../chat/app-routes.ts';
import { previewRoutes } from '../chat/app/character-preview.ts';
import { privateChatRoutes } from '../chat/app/private-routes.ts';
import { conversationRoutes } from '../conversations/app-routes.ts';
import { catalogueRoutes } from '../catalogue/app-routes.ts';
import { walletRoutes } from '../wallet/app-routes.ts';
import { usageRoutes } from '../billing/app-usage.ts';
import { rateLimitRoutes } from '../limits/app-rate-limits.ts';
import { keyRoutes } from '../keys/app-list.ts';
import { apiKeyRoutes } from '../keys/app-routes.ts';
import { billingRoutes } from '../billing/app-routes.ts';
import { limitRoutes } from '../limits/app-routes.ts';
import { operatorRoutes } from '../operator/app-routes.ts';
import { operatorModelRoutes } from '../operator/app-models.ts';
import { toolRoutes } from '../tools/app-routes.ts';
import { accountSettingsRoutes } from '../account/app-settings.ts';
import { videoRoutes } from '../video/app-routes.ts';
import { audioRoutes } from '../audio/app-routes.ts';
import { imageRoutes } from '../images/app-routes.ts';
import { characterRoutes } from '../characters/app-routes.ts';
import { memoryRoutes } from '../memory/app-routes.ts';
import { promptRoutes } from '../prompts/app-routes.ts';
import { folderRoutes } from '../conversations/app-folders.ts';
import { importRoutes } from '../conversations/app-import.ts';
import { shareRoutes } from '../conversations/app-shares.ts';
import { knowledgeRoutes } from '../knowledge/app-routes.ts';
import { alertRoutes } from '../alerts/app-routes.ts';
import { teamRoutes } from '../teams/app-routes.ts';
import type { AppDeps } from './app-deps.ts';

export interface AppBackend {
  routes: AppRoutes;
  /** Stops live generations, keeping what they produced; called on shutdown. */
  close(): Promise<void>;
}

export type AppRoutes = ReturnType<typeof authRoutes> &
  ReturnType<typeof recoveryRoutes> &
  ReturnType<typeof twoFactorRoutes> &
  ReturnType<typeof passkeyRoutes> &
  ReturnType<typeof ssoRoutes> &
  ReturnType<typeof signInMethodRoutes> &
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
  ReturnType<typeof toolRoutes> &
  ReturnType<typeof accountSettingsRoutes> &
  ReturnType<typeof videoRoutes> &
  ReturnType<typeof audioRoutes> &
  ReturnType<typeof characterRoutes> &
  ReturnType<typeof knowledgeRoutes> &
  ReturnType<typeof previewRoutes> &
  ReturnType<typeof privateChatRoutes> &
  ReturnType<typeof memoryRoutes> &
  ReturnType<typeof promptRoutes> &
  ReturnType<typeof folderRoutes> &
  ReturnType<typeof importRoutes> &
  ReturnType<typeof alertRoutes> &
  ReturnType<typeof teamRoutes> &
  ReturnType<typeof shareRoutes> &
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
      ...recoveryRoutes(deps),
      ...twoFactorRoutes(deps),
      ...passkeyRoutes(deps),
      ...ssoRoutes(deps),
      ...signInMethodRoutes(deps),
      ...conversationRoutes(deps),
      ...previewRoutes(deps),
      ...privateChatRoutes(deps),
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
      ...toolRoutes(deps),
      ...accountSettingsRoutes(deps),
      ...videoRoutes(deps),
      ...audioRoutes(deps),
      ...characterRoutes(deps),
      ...memoryRoutes(deps),
      ...promptRoutes(deps),
      ...folderRoutes(deps),
      ...importRoutes(deps),
      ...alertRoutes(deps),
      ...teamRoutes(deps),
      ...shareRoutes(deps),
      ...knowledgeRoutes(deps),
      ...imageHandlers,
      ...chatHandlers,
    },
    close: async () => {
      await Promise.all([close(), closeImages()]);
    },
  };
}
