// The chat's top bar: model picker, the character (when the chat has one), the title, a new chat's Temporary switch,
// Share (a stored chat's branch on screen) and the settings popover.
import { useTranslations } from 'use-intl';
import type { AppCharacter, AppModel, AppModelsResponse, ChatSettings } from '@/lib/wire.ts';
import { CharacterAvatar } from './character-avatar.tsx';
import { ChatSettingsButton } from './chat-settings.tsx';
import { ModelPicker } from './model-picker.tsx';
import { ShareButton } from '@/components/share/share-dialog.tsx';

interface Props {
  title: string | null;
  models: AppModel[];
  modelId: string | null;
  onModelChange: (id: string) => void;
  character: AppCharacter | null;
  settings: ChatSettings;
  onSettingsSave: (s: ChatSettings) => void;
  webSearch?: AppModelsResponse['webSearch'];
  /** A stored chat and the last message on screen: the branch a share link would show. */
  conversationId?: string | null;
  leafId?: string | null;
  /** A new chat's "Temporary" switch (absent once the chat exists). */
  temporary?: { on: boolean; toggle: () => void };
}

export function ChatHeader({
  title,
  models,
  modelId,
  onModelChange,
  character,
  settings,
  onSettingsSave,
  webSearch,
  conversationId,
  leafId,
  temporary,
}: Props) {
  const t = useTranslations('chat.header');
  return (
    <div className="flex h-12 shrink-0 items-center gap-2 border-b border-border px-2 sm:px-4">
      <ModelPicker models={models} value={modelId} onChange={onModelChange} />
      {character && (
        <span className="flex min-w-0 items-center gap-2 text-sm" data-testid="chat-character">
          <CharacterAvatar character={character} />
          <span className="truncate font-medium">{character.name}</span>
        </span>
      )}
      <h1 className="min-w-0 flex-1 truncate text-center text-sm text-muted-foreground max-sm:sr-only">{title ?? t('newChat')}</h1>
      <span className="flex-1 sm:hidden" />
      {temporary && (
        <button
          type="button"
          aria-pressed={temporary.on}
          data-testid="temporary-toggle"
          onClick={temporary.toggle}
          title={t('temporaryTitle')}
          className={`rounded-md border px-2 py-1 text-xs font-medium ${temporary.on ? 'border-primary bg-primary text-primary-foreground' : 'border-border text-muted-foreground hover:bg-accent'}`}
        >
          {temporary.on ? t('temporaryOn') : t('temporary')}
        </button>
      )}
      <ShareButton conversationId={conversationId ?? null} leafId={leafId ?? null} />
      <ChatSettingsButton
        settings={settings}
        onSave={onSettingsSave}
        webSearch={webSearch}
        toolsSupported={models.find((m) => (modelId ? m.id === modelId : m.isDefault))?.capabilities.functionCalling}
        temporary={temporary?.on}
      />
    </div>
  );
}
