// What message rows need from the chat without taking it as props (props would change on every send and break
// the rows' memoisation): the actions, stable for the view's lifetime, and model names for the footers.
import { createContext, useContext } from 'react';
import type { AppMessage } from '@/lib/wire.ts';

export interface ChatActions {
  regenerate(assistantId: string): void;
  /** Sends `content` as a new version of user message `message` (a sibling branch); resolves false on failure. */
  edit(message: AppMessage, content: string): Promise<boolean>;
  stop(assistantId: string): void;
  switchSibling(messageId: string, step: -1 | 1): void;
}

export const ChatActionsContext = createContext<ChatActions | null>(null);

export function useChatActions(): ChatActions {
  const actions = useContext(ChatActionsContext);
  if (!actions) throw new Error('ChatActionsContext is missing');
  return actions;
}

/** Model id → display name. */
export const ModelNamesContext = createContext<ReadonlyMap<string, string>>(new Map());
