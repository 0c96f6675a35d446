// The editor's live preview: a draft character answers a few messages through the app's normal chat path (the same
// metered pipeline, billed to the caller like any chat), without storing a conversation.
import { z } from 'zod';
import { ApiError, ERROR_CODES, type ErrorCode } from '../../api/errors.ts';
import { CHARACTER_LIMITS as L } from '../../characters/limits.ts';
import { fillMacros, personaPrompt } from '../../characters/snapshot.ts';
import { characterFields } from '../../characters/validate.ts';
import { type InferenceClient, InferenceError } from './inference.ts';
import { localClient } from './local-client.ts';
import { remoteClient } from './remote-client.ts';
import type { AppDeps } from '../../http/app-deps.ts';
import { appRoute, json } from '../../http/app-route.ts';
import type { AppError, AppUsage } from '../../wire.ts';
import { catalogueSource } from '../../catalogue/sources.ts';

const previewBody = z.strictObject({
  draft: z.strictObject({
    name: characterFields.name.optional(),
    instructions: characterFields.instructions,
    firstMessage: characterFields.firstMessage.optional(),
    exampleDialogue: characterFields.exampleDialogue.optional(),
    modelId: characterFields.modelId.optional(),
    temperature: characterFields.temperature.optional(),
  }),
  messages: z
    .array(
      z.strictObject({
        role: z.enum(['user', 'assistant']),
        content: z
          .string()
          .min(1)
          .max(L.firstMessage * 2),
      }),
    )
    .min(1, 'send at least one message')
    .max(40, 'at most 40 messages')
    .refine((m) => m.at(-1)?.role === 'user', { message: 'the last message must be the user’s' }),
});

const toApiError = (e: AppError) =>
  new ApiError(
    e.code in ERROR_CODES ? (e.code as ErrorCode) : 'INFERENCE_FAILED',
    e.message,
    {},
    e.retryAfter ? { 'retry-after': String(e.retryAfter) } : undefined,
  );

export function previewRoutes(deps: AppDeps) {
  let client: InferenceClient | undefined;
  const clientOf = () => (client ??= deps.app.remote ? remoteClient(deps.app.remote) : localClient(deps.svc));
  const catalogue = catalogueSource(deps);

  return {
    previewCharacter: appRoute(
      deps,
      { auth: 'session+csrf', body: previewBody, bodyLimit: 256 * 1024 },
      async ({ req, requestId, session: { user }, body: b }) => {
        const d = b.draft;
        const model = d.modelId ? (await catalogue.model(d.modelId)).id : (await catalogue.models()).find((m) => m.isDefault)?.id;
        if (!model) throw new ApiError('MODEL_NOT_FOUND', 'No chat model is available');
        const names = { char: d.name ?? 'Character', user: user.displayName || 'User' };
        const messages: { role: string; content: string }[] = [];
        const persona = personaPrompt({ name: names.char, instructions: d.instructions, exampleDialogue: d.exampleDialogue ?? '' }, names.user);
        if (persona) messages.push({ role: 'system', content: persona });
        if (d.firstMessage) messages.push({ role: 'assistant', content: fillMacros(d.firstMessage, names) });
        messages.push(...b.messages);
        const body = {
          model,
          messages,
          stream: true,
          stream_options: { include_usage: true },
          ...(d.temperature != null ? { temperature: d.temperature } : {}),
        };
        let reply = '';
        let usage: AppUsage | null = null;
        try {
          const run = await clientOf().start(user, body, { signal: req.signal, requestId });
          for await (const ev of run.events) {
            if (ev.type === 'content') reply += ev.text;
            else if (ev.type === 'usage') usage = ev.usage;
            else if (ev.type === 'error') throw toApiError(ev.error);
          }
        } catch (e) {
          if (e instanceof InferenceError) throw toApiError(e.error);
          throw e;
        }
        return json({ reply, usage, model });
      },
    ),
  };
}
