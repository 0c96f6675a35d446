// The chat's top bar: model picker, the character (when the chat has one), the title, and the settings popover.
import type { AppCharacter, AppModel, AppModelsResponse, ChatSettings } from '@/lib/wire.ts';
import { CharacterAvatar } from './character-avatar.tsx';
import { ChatSettingsButton } from './chat-settings.tsx';
import { ModelPicker } from './model-picker.tsx';

interface Props {
  title: string | null;
  models: AppModel[];
  modelId: string | null;
  onModelChange: (id: string) => void;
  character: AppCharacter | null;
  settings: ChatSettings;
  onSettingsSave: (s: ChatSettings) => void;
  webSearch?: AppModelsResponse['webSearch'];
}

export function ChatHeader({ title, models, modelId, onModelChange, character, settings, onSettingsSave, webSearch }: Props) {
  return (
    <div className="flex h-12 shrink-0 items-center gap-2 border-b border-border px-2 sm:px-4">
      <ModelPicker models={models} value={modelId} onChange={onModelChange} />
      {character && (
        <span className="flex min-w-0 items-center gap-2 text-sm" data-testid="chat-character">
          <CharacterAvatar character={character} />
          <span className="truncate font-medium">{character.name}</span>
        </span>
      )}
      <h1 className="min-w-0 flex-1 truncate text-center text-sm text-muted-foreground max-sm:sr-only">{title ?? 'New chat'}</h1>
      <span className="flex-1 sm:hidden" />
      <ChatSettingsButton
        settings={settings}
        onSave={onSettingsSave}
        webSearch={webSearch}
        toolsSupported={models.find((m) => (modelId ? m.id === modelId : m.isDefault))?.capabilities.functionCalling}
      />
    </div>
  );
}
