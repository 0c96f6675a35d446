// The chat app's generation routes: send (and edit-and-resend), regenerate, stop, stream (attach/reattach) and the
// attachment limits. Every lookup goes through the session user's own conversations, so another user's id is 404.
import { z } from 'zod';
import { ApiError } from '../api/errors.ts';
import { autoTitle, chatSettingsSchema, type Conversation, type ConversationOps, type Message, userConversations } from '../conversations/conversations.ts';
import { DEFAULT_TITLE } from '../conversations/text.ts';
import type { AppDeps } from '../http/app-deps.ts';
import { acceptsEvents, appRoute, json, type JsonReply, type SessionCall } from '../http/app-route.ts';
import { catalogueSource, webSearchUnavailable } from '../catalogue/sources.ts';
import { toAppConversation } from '../conversations/present.ts';
import type { User } from '../users/users.ts';
import type { GenerationEvent, SendMessageResponse, TemporaryTurnResponse, TurnEvent } from '../wire.ts';
import { attachmentLimits, checkAttachments, recheckKept, SEND_BODY_LIMIT, storedAttachment, type StoredAttachment } from './app/attachments.ts';
import { canTranscribe, MAX_AUDIO_SECONDS, transcribeAudioAttachments } from './app/audio-attachments.ts';
import { Generations } from './app/generations.ts';
import type { InferenceClient } from './app/inference.ts';
import { localClient } from './app/local-client.ts';
import { toAppMessage } from '../conversations/message.ts';
import { modelForTurn } from './app/models.ts';
import { readSnapshot } from '../characters/snapshot.ts';
import { chatRequestBody } from './app/prompt.ts';
import { knowledgeContext } from './app/knowledge.ts';
import { remoteClient } from './app/remote-client.ts';
import { finishedEvents, liveEvents, pollingEvents } from './app/stream.ts';
import { type EventBegin, eventReply } from '../http/app-events.ts';
import { interrupt, isStale } from '../conversations/stale.ts';
import { type ChatMemory, memoriesForChat } from '../memory/for-chat.ts';
import { McpPool } from '../tools/mcp-client.ts';
import { McpServers } from '../tools/mcp-servers.ts';
import { CODE_RUNNER_ID, codeRunnerTool } from '../tools/code-runner.ts';
import { chatTools } from '../tools/registry.ts';
import type { Tool } from '../tools/tool.ts';
import { WEB_TOOLS_ID, webTools } from '../tools/web-tools.ts';
import type { AnswerTools } from './app/generations.ts';
import type { TurnModel } from './app/models.ts';
import { memoryMessage, TemporaryAnswers } from './app/temporary.ts';
import { randomUUID } from 'node:crypto';

const MAX_TEXT = 200_000;
const idSchema = z.string().min(1).max(200);

const uploadsSchema = z
  .array(z.strictObject({ name: z.string().max(4096), type: z.string().max(255), dataUrl: z.string().min(5) }))
  .max(100)
  .optional();

const sendSchema = z.strictObject({
  parentId: idSchema.nullable(),
  content: z.string().max(MAX_TEXT, `A message can be at most ${MAX_TEXT.toLocaleString('en')} characters`),
  attachments: uploadsSchema,
  modelId: idSchema.optional(),
  attachmentsFrom: idSchema.optional(),
});

const regenerateSchema = z.strictObject({ modelId: idSchema.optional() });

/** A temporary chat's turn: the branch so far (from the browser, which alone holds it) and the new words, if any. */
const temporarySchema = z.strictObject({
  chatId: z.string().regex(/^temporary-[A-Za-z0-9-]{1,80}$/, 'chatId must be temporary-<id>'),
  /** The browser sends earlier turns' files again (nothing is kept here), as it sends their words. */
  history: z
    .array(z.strictObject({ id: idSchema, role: z.enum(['user', 'assistant']), content: z.string().max(MAX_TEXT * 5), attachments: uploadsSchema }))
    .max(1000),
  /** Absent: the last message of history (a user's) is answered again. */
  content: z
    .string()
    .max(MAX_TEXT, `A message can be at most ${MAX_TEXT.toLocaleString('en')} characters`)
    .optional(),
  /** The new message's files: read for this turn only, never stored. */
  attachments: uploadsSchema,
  modelId: idSchema.optional(),
  settings: chatSettingsSchema
    .pick({ systemPrompt: true, temperature: true, webSearch: true, citations: true, includeServiceSystemPrompt: true, tools: true })
    .optional(),
});

export function chatRoutes(deps: AppDeps) {
  const { svc } = deps;
  const { remote } = deps.app;
  const client: InferenceClient = remote ? remoteClient(remote) : localClient(svc);
  const generations = new Generations(client);
  const temporary = new TemporaryAnswers();
  // Server-side tools: the operator's MCP servers, one connection pool for every answer of this process.
  const toolCfg = svc.config.tools;
  const mcpServers = new McpServers(svc.store, svc.secrets);
  const mcpPool = new McpPool({ allowHosts: svc.config.fetchAllowHosts, stdioAllowed: toolCfg.mcpStdio });
  const toolLimits = { maxRounds: toolCfg.maxRounds, totalMs: toolCfg.totalMs, callTimeoutMs: toolCfg.callTimeoutMs, maxResultChars: toolCfg.maxResultChars };
  /** The answer's tools: the chat's switched-on servers (ids), when the model can call tools at all. */
  const toolsFor = (user: User, ids: string[], model: TurnModel): AnswerTools | undefined => {
    if (!ids.length || !model.functionCalling) return undefined;
    const builtins: Record<string, () => Tool[]> = {
      [WEB_TOOLS_ID]: () =>
        webTools({
          meter: svc,
          user,
          searchProviders: svc.searchProviders,
          prices: svc.config.augmentPrices,
          allowHosts: svc.config.fetchAllowHosts,
          maxResultChars: toolLimits.maxResultChars,
        }),
    };
    if (toolCfg.codeRunner.enabled) {
      const memoryBytes = toolCfg.codeRunner.memoryMb * 1024 * 1024;
      builtins[CODE_RUNNER_ID] = () => [
        codeRunnerTool({ timeoutMs: toolLimits.callTimeoutMs, memoryBytes, maxResultChars: toolLimits.maxResultChars }, user.id),
      ];
    }
    return { limits: toolLimits, load: (signal) => chatTools({ servers: mcpServers, pool: mcpPool, limits: toolLimits, builtins }, user.id, ids, signal) };
  };
  const heartbeatMs = svc.config.sseKeepAliveMs;
  // With the embedded store this process is the only writer, so a 'streaming' row older than it is certainly dead.
  const aliveSince = svc.store.kind === 'sqlite' ? Date.now() : 0;

  const catalogue = catalogueSource(deps);
  const audioOk = canTranscribe(svc.chatDeps);
  // The user's memories for this turn (none when the chat's switch is off or LAGOON_MEMORY_TOKENS is 0).
  const memoriesFor = (user: User, c: Conversation) => memoriesForChat(svc.store, user.id, c, deps.app.memoryTokens);
  const modelFor = (requested: string | null, characterSlug: string | null, history: Message[]) => modelForTurn(catalogue, requested, characterSlug, history);

  async function startAnswer(
    requestId: string,
    user: User,
    ops: ConversationOps,
    assistant: Message,
    history: Message[],
    conversation: Conversation,
    model: TurnModel,
    memories: ChatMemory[],
    signal: AbortSignal,
  ) {
    // The chat's character as it was when the chat began (null: none, or a chat from before snapshots).
    const character = conversation.characterSlug ? await readSnapshot(svc.store, conversation.id, user.id) : null;
    const knowledge = await knowledgeContext(svc.knowledge, user.id, conversation.settings, history, signal);
    const body = chatRequestBody({
      model: model.id,
      conversation: { ...conversation, character, userName: user.displayName },
      history,
      wire: client.wire,
      memories,
      knowledge: knowledge.block,
    });
    generations.start({
      user,
      ops,
      message: assistant,
      body,
      requestId,
      tools: toolsFor(user, conversation.settings.tools ?? [], model),
      citations: knowledge.citations,
    });
  }

  /**
   * 400 while `m` is still being written; an answer whose writer died is declared interrupted instead, so it never
   * blocks the chat.
   */
  async function notWriting(ops: ConversationOps, user: User, m: Message, why: string, param: string): Promise<Message> {
    if (m.status !== 'streaming') return m;
    if (generations.get(m.id, user.id) || !isStale(m, Date.now(), aliveSince)) throw new ApiError('INVALID_REQUEST', why, { param });
    return interrupt(ops, m);
  }

  /** The stored files of a user message in this conversation (edit-and-resend); 404 for anything else. */
  async function keptAttachments(ops: ConversationOps, conversationId: string, messageId: string): Promise<StoredAttachment[]> {
    const m = await ops.message(messageId);
    if (m.conversationId !== conversationId || m.role !== 'user')
      throw new ApiError('NOT_FOUND', 'The message whose files should be kept was not found', { param: 'attachmentsFrom' });
    return m.attachments.map((a) => storedAttachment(a)).filter((a): a is StoredAttachment => a !== undefined);
  }

  async function ownedAssistant(ops: ConversationOps, id: string): Promise<Message> {
    const m = await ops.message(id);
    if (m.role !== 'assistant') throw new ApiError('INVALID_REQUEST', 'Only an answer can be regenerated, stopped or streamed', { param: 'id' });
    return m;
  }

  const sendMessage = async ({ req, params, requestId, signal, session: { user }, body: input }: SessionCall & { body: z.output<typeof sendSchema> }) => {
    const uploads = input.attachments ?? [];
    const ops = userConversations(svc.store, user.id);
    const kept = input.attachmentsFrom ? await keptAttachments(ops, params.id ?? '', input.attachmentsFrom) : [];
    if (!input.content.trim() && !uploads.length && !kept.length)
      throw new ApiError('INVALID_REQUEST', 'Write a message or attach a file', { param: 'content' });
    // The branch being answered: the path to the parent (empty for a first message, or an edit of the first one).
    const c = await ops.withPath(params.id ?? '', input.parentId ?? undefined);
    // The first thing the user says (after a character's opening message, if any) names the chat.
    const isFirst = input.parentId === null ? c.messages.length === 0 : c.messages.every((m) => m.role !== 'user');
    const history = input.parentId === null ? [] : c.messages;
    const parent = history.at(-1);
    if (parent)
      history[history.length - 1] = await notWriting(ops, user, parent, 'The previous answer is still being written: stop it or wait for it', 'parentId');
    const model = await modelFor(input.modelId ?? c.modelId, c.characterSlug, history);
    client.checkSettings(c.settings);
    const attachments = [...recheckKept(kept, model, uploads.length), ...checkAttachments(uploads, model, { audio: audioOk }).attachments];
    // Audio is written down now, so a file that is too long or unreadable is refused before anything is stored.
    await transcribeAudioAttachments(svc.chatDeps, attachments, { requestId: `app-${c.id}`, signal }, kept.length);

    const memories = await memoriesFor(user, c);
    const autoNamed = isFirst && c.title === DEFAULT_TITLE ? autoTitle(input.content) : undefined;
    // Everything is checked: from here on the turn is stored, in one transaction with the chat's new title and model.
    const turn = await ops.addTurn(c.id, {
      user: { parentId: input.parentId, role: 'user', content: input.content, attachments },
      assistant: { role: 'assistant', content: '', status: 'streaming', modelId: model.id, memories },
      title: autoNamed === DEFAULT_TITLE && attachments.length ? attachments[0].name : autoNamed,
      modelId: input.modelId && input.modelId !== c.modelId ? input.modelId : undefined,
    });
    const { user: userMsg, assistant } = turn;
    await startAnswer(requestId, user, ops, assistant, [...history, userMsg], c, model, memories, signal);
    const out: SendMessageResponse = { user: toAppMessage(userMsg), assistant: toAppMessage(assistant), conversation: toAppConversation(turn.conversation) };
    return turnReply(req, user, out);
  };

  const regenerate = async ({ req, params, requestId, signal, session: { user }, body: input }: SessionCall & { body: z.output<typeof regenerateSchema> }) => {
    const ops = userConversations(svc.store, user.id);
    const original = await ownedAssistant(ops, params.id ?? '');
    await notWriting(ops, user, original, 'This answer is still being written: stop it first', 'id');
    if (original.parentId === null) throw new ApiError('INVALID_REQUEST', 'This answer has no question to answer again', { param: 'id' });
    const c = await ops.withPath(original.conversationId, original.parentId);
    const model = await modelFor(input.modelId ?? c.modelId, c.characterSlug, c.messages);
    client.checkSettings(c.settings);
    const memories = await memoriesFor(user, c);
    const assistant = await ops.addMessage(c.id, {
      parentId: original.parentId,
      role: 'assistant',
      content: '',
      status: 'streaming',
      modelId: model.id,
      memories,
    });
    if (input.modelId && input.modelId !== c.modelId) await ops.setModel(c.id, input.modelId);
    await startAnswer(requestId, user, ops, assistant, c.messages, c, model, memories, signal);
    return turnReply(req, user, { assistant: toAppMessage(assistant) });
  };

  /**
   * A temporary chat's turn (temporary.ts): the same model choice, prompt and metered generation as a stored chat's,
   * with its files (checked as a stored chat's, read for this turn and dropped) and its tools, without the account's
   * memories or knowledge, and with nothing written to the store.
   */
  const temporaryTurn = async ({ req, requestId, signal, session: { user }, body: input }: SessionCall & { body: z.output<typeof temporarySchema> }) => {
    const settings = input.settings ?? {};
    const why = settings.webSearch === 'on' ? webSearchUnavailable(deps) : null;
    if (why) throw new ApiError('INVALID_REQUEST', `${why} Set the chat's web search to off or auto.`, { param: 'settings.webSearch' });
    client.checkSettings(settings);
    // A stored chat's tools were chosen from the offered ones; a temporary turn's come with it, so they are checked.
    const toolIds = settings.tools ?? [];
    if (toolIds.length) {
      const servers = new Set((await mcpServers.enabledOf(toolIds)).map((x) => x.id));
      const builtin = new Set([WEB_TOOLS_ID, ...(toolCfg.codeRunner.enabled ? [CODE_RUNNER_ID] : [])]);
      const unknown = toolIds.find((t) => !builtin.has(t) && !servers.has(t));
      if (unknown) throw new ApiError('INVALID_REQUEST', `No tool "${unknown}" is offered on this server`, { param: 'settings.tools' });
    }
    const chatId = input.chatId;
    const history: Message[] = [];
    for (const h of input.history) history.push(memoryMessage(chatId, { id: h.id, parentId: history.at(-1)?.id ?? null, role: h.role, content: h.content }));
    let userMsg: Message | null = null;
    const uploads = input.attachments ?? [];
    if (input.content !== undefined) {
      if (!input.content.trim() && !uploads.length) throw new ApiError('INVALID_REQUEST', 'Write a message or attach a file', { param: 'content' });
      userMsg = memoryMessage(chatId, { id: randomUUID(), parentId: history.at(-1)?.id ?? null, role: 'user', content: input.content });
      history.push(userMsg);
    } else if (uploads.length) {
      throw new ApiError('INVALID_REQUEST', 'Files come with a new message (content)', { param: 'attachments' });
    } else if (history.at(-1)?.role !== 'user') {
      throw new ApiError('INVALID_REQUEST', 'Send content, or a history that ends with a question to answer again', { param: 'content' });
    }
    const model = await modelFor(input.modelId ?? null, null, history);
    // Files, checked as a stored chat's are (type, size, content, a model that reads images), live in these messages
    // only: the turn's memory, gone with the answer.
    for (const [i, h] of input.history.entries()) {
      if (!h.attachments?.length) continue;
      if (h.role !== 'user') throw new ApiError('INVALID_REQUEST', 'Only a user message has files', { param: `history[${i}].attachments` });
      const files = checkAttachments(h.attachments, model, { audio: audioOk }).attachments;
      await transcribeAudioAttachments(svc.chatDeps, files, { requestId: `app-${chatId}`, signal }, 0);
      history[i].attachments = files;
    }
    if (userMsg && uploads.length) {
      const files = checkAttachments(uploads, model, { audio: audioOk }).attachments;
      await transcribeAudioAttachments(svc.chatDeps, files, { requestId: `app-${chatId}`, signal }, 0);
      userMsg.attachments = files;
    }
    const assistant = memoryMessage(chatId, {
      id: randomUUID(),
      parentId: history.at(-1)?.id ?? null,
      role: 'assistant',
      content: '',
      status: 'streaming',
      modelId: model.id,
    });
    const body = chatRequestBody({ model: model.id, conversation: { characterSlug: null, settings, userName: user.displayName }, history, wire: client.wire });
    generations.start({
      user,
      ops: temporary.store(user.id, assistant),
      message: assistant,
      body,
      requestId,
      tools: toolsFor(user, settings.tools ?? [], model),
    });
    const out: TemporaryTurnResponse = { user: userMsg && toAppMessage(userMsg), assistant: toAppMessage(assistant) };
    return turnReply(req, user, out);
  };

  const stopMessage = async ({ params, session: { user } }: SessionCall) => {
    const ops = userConversations(svc.store, user.id);
    const id = params.id ?? '';
    const live = generations.get(id, user.id);
    if (live) {
      live.stop('user');
      return json({ message: toAppMessage(await live.finished) });
    }
    const ended = temporary.finished(id, user.id);
    if (ended) return json({ message: toAppMessage(ended) });
    const m = await ownedAssistant(ops, id);
    if (m.status !== 'streaming') return json({ message: toAppMessage(m) }); // already ended: stopping is a no-op
    if (isStale(m, Date.now(), aliveSince)) return json({ message: toAppMessage(await interrupt(ops, m)) });
    // Generated by another instance: mark it stopped; that instance sees it at its next progress write and keeps
    // what it produced.
    const stopped = await ops.updateMessage(id, { status: 'stopped' }, { ifStatus: 'streaming' });
    return json({ message: toAppMessage(stopped ?? (await ops.message(id))) });
  };

  /** An answer's events: live from this process, its stored end, or its row re-read while another instance writes it. */
  async function answerEvents(id: string, user: User): Promise<EventBegin<GenerationEvent>> {
    const live = generations.get(id, user.id);
    if (live) return liveEvents(live);
    const ended = temporary.finished(id, user.id);
    if (ended) return finishedEvents(ended);
    const ops = userConversations(svc.store, user.id);
    let m = await ownedAssistant(ops, id);
    // It may have ended between the registry check and the read; the row then holds its final state.
    if (m.status === 'streaming') {
      const again = generations.get(id, user.id);
      if (again) return liveEvents(again);
      if (isStale(m, Date.now(), aliveSince)) m = await interrupt(ops, m);
      else return pollingEvents(ops, m, { aliveSince });
    }
    return finishedEvents(m);
  }

  const streamMessage = async ({ params, session: { user } }: SessionCall) => eventReply(heartbeatMs, await answerEvents(params.id ?? '', user));

  /**
   * A turn's answer: its JSON (201), or, when the client accepts server-sent events, the turn as the first event and
   * the answer's events after it on the same response, as GET /messages/:id/stream gives them. The browser takes the
   * stream: one request per turn instead of two, and the answer's first words a round trip sooner. The stream's type
   * is the client's to know (callStream); the route map carries the JSON form.
   */
  async function turnReply<T extends TurnEvent['turn']>(req: Request, user: User, turn: T): Promise<JsonReply<T>> {
    if (!acceptsEvents(req)) return json(turn, 201);
    const answer = await answerEvents(turn.assistant.id, user);
    const begin: EventBegin<GenerationEvent | TurnEvent> = (out) => {
      out.send({ type: 'turn', turn });
      return answer(out);
    };
    return eventReply(heartbeatMs, begin) as JsonReply<T>;
  }

  const limits = async () => {
    return json(attachmentLimits(audioOk ? { maxSeconds: MAX_AUDIO_SECONDS } : undefined), 200, { 'cache-control': 'private, max-age=300' });
  };

  return {
    sendMessage: appRoute(deps, { auth: 'session+csrf', body: sendSchema, bodyLimit: SEND_BODY_LIMIT }, sendMessage),
    regenerate: appRoute(deps, { auth: 'session+csrf', body: regenerateSchema }, regenerate),
    temporaryTurn: appRoute(deps, { auth: 'session+csrf', body: temporarySchema, bodyLimit: SEND_BODY_LIMIT }, temporaryTurn),
    stopMessage: appRoute(deps, 'session+csrf', stopMessage),
    streamMessage: appRoute(deps, 'session', streamMessage),
    limits: appRoute(deps, 'session', limits),
    /** Stops every live generation, keeping what each produced ('stopped'); for shutdown. */
    close: async () => {
      await generations.close();
      await mcpPool.close();
    },
  };
}
