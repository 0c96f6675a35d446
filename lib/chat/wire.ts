// Sending a message, uploading its attachments, and the event stream of the answer being generated.
import type { AppCitation, AppConversation, AppMessage, AppMessageStatus, AppToolStep, ChatSettings } from '../conversations/wire.ts';

/** An attachment as the browser uploads it. */
export interface UploadAttachment {
  name: string;
  type: string;
  /** data: URL (base64) of the file. */
  dataUrl: string;
}

export interface SendMessageRequest {
  /** The message this one answers to: the last message of the branch, or an earlier one to edit-and-branch. Null starts the conversation. */
  parentId: string | null;
  content: string;
  attachments?: UploadAttachment[];
  /** Overrides the conversation's model for this turn (and becomes the conversation's model). */
  modelId?: string;
  /** Edit-and-resend: a user message of this conversation whose stored attachments go with this one too. */
  attachmentsFrom?: string;
}

export interface SendMessageResponse {
  user: AppMessage;
  assistant: AppMessage;
  conversation: AppConversation;
}

/** A temporary chat's turn (POST /api/app/chat/temporary): nothing of it is stored. */
export interface TemporaryTurnRequest {
  /** The browser's id for the chat (`temporary-<uuid>`), echoed as the messages' conversationId. */
  chatId: string;
  /** The branch so far, oldest first; a user message's files go again with it (the server keeps none). */
  history: { id: string; role: 'user' | 'assistant'; content: string; attachments?: UploadAttachment[] }[];
  /** The new message; absent to answer the history's last (user) message again. */
  content?: string;
  /** The new message's files: read for this turn only. */
  attachments?: UploadAttachment[];
  modelId?: string;
  settings?: Pick<ChatSettings, 'systemPrompt' | 'temperature' | 'webSearch' | 'citations' | 'includeServiceSystemPrompt' | 'tools'>;
}

export interface TemporaryTurnResponse {
  /** The new user message (null when answering again). */
  user: AppMessage | null;
  /** The answer, streaming: follow GET /api/app/messages/:id/stream as any answer. */
  assistant: AppMessage;
}

export interface AttachmentLimits {
  maxFiles: number;
  maxFileBytes: number;
  imageTypes: string[];
  documentTypes: string[];
  /** Audio files, transcribed into the prompt like a document's text (absent or empty: this server cannot transcribe). */
  audioTypes?: string[];
  /** The longest audio attachment, in seconds. */
  maxAudioSeconds?: number;
  /** Accept attribute for <input type=file>. */
  accept: string;
}

/**
 * The first event of a turn answered as a stream (POST …/messages, …/regenerate or /chat/temporary with `Accept:
 * text/event-stream`): what the JSON answer would have been. The answer's GenerationEvents follow on the same stream.
 */
export interface TurnEvent {
  type: 'turn';
  turn: SendMessageResponse | TemporaryTurnResponse | { assistant: AppMessage };
}

/** Server-sent events on /api/app/messages/:id/stream; each `data:` line is one JSON GenerationEvent. */
export type GenerationEvent =
  /** First event on every attach: everything generated so far. */
  | { type: 'snapshot'; content: string; reasoning: string; citations: AppCitation[]; status: AppMessageStatus; toolSteps?: AppToolStep[] }
  | { type: 'delta'; content?: string; reasoning?: string }
  | { type: 'citations'; citations: AppCitation[] }
  /** A server-side tool call began (status 'running') or ended (done or error): the step, whole, by its id. */
  | { type: 'tool'; step: AppToolStep }
  /** Last event: the stored message in its final state (status complete, stopped or error; usage; error). */
  | { type: 'done'; message: AppMessage };
