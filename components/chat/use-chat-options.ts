// The model and settings in effect: the conversation's own, or for a new chat the choices made so far (sent with
// POST /conversations on the first message), falling back to the character's model and then the default model.
import { useMemo, useState } from 'react';
import type { AppCharacter, AppConversation, AppModel, ChatSettings } from '@/lib/wire.ts';

export function useChatOptions(conv: AppConversation | undefined, models: AppModel[] | undefined, character: AppCharacter | null) {
  const [draftModel, setDraftModel] = useState<string | null>(null);
  const [draftSettings, setDraftSettings] = useState<ChatSettings>({});
  const modelList = useMemo(() => models ?? [], [models]);
  const modelId = conv?.modelId ?? draftModel ?? character?.modelId ?? modelList.find((m) => m.isDefault)?.id ?? modelList[0]?.id ?? null;
  const model = modelList.find((m) => m.id === modelId);
  const modelNames = useMemo(() => new Map(modelList.map((m) => [m.id, m.name])), [modelList]);
  return { modelList, modelId, model, modelNames, settings: conv?.settings ?? draftSettings, setDraftModel, setDraftSettings };
}
