// The browser app's private chats. The page seals everything: each message to the E2EE worker's key for the answer
// (lib/chat/e2ee.ts relays it, billed as the user's key), and to a key derived from the user's passphrase for
// storage. These routes keep what the page sealed and relay what the worker sealed; nothing here can open either.
import { z } from 'zod';
import { ApiError } from '../../api/errors.ts';
import { NONCE_HEX } from '../../e2ee/attestation.ts';
import { parsePublicKey } from '../../e2ee/envelope.ts';
import { privateChats, SEALED_MAX, SEALED_TEXT } from '../../conversations/private.ts';
import type { AppDeps } from '../../http/app-deps.ts';
import { appRoute, json, noContent } from '../../http/app-route.ts';
import { resolveModel } from '../../models/catalogue.ts';
import { principalForUser } from '../../users/users.ts';
import { startSealedChat } from '../e2ee.ts';
import type { PrivateAttestation } from '../wire-private.ts';

const sealed = z.string().max(SEALED_MAX).regex(SEALED_TEXT, 'must be a sealed text (v1.<base64>)');
const publicKey = z.string().refine((k) => parsePublicKey(k) !== null, 'must be an uncompressed secp256k1 public key (130 hex characters)');
const vaultBody = z.strictObject({ salt: z.string().regex(/^[A-Za-z0-9+/]{22,88}={0,2}$/, 'must be base64 of 16 to 64 bytes'), check: sealed });
const chatBody = z.strictObject({ title: sealed, modelId: z.string().min(1).max(200) });
const renameBody = z.strictObject({ title: sealed });
const turnBody = z.strictObject({
  messages: z
    .array(z.strictObject({ role: z.enum(['user', 'assistant']), content: sealed, requestId: z.string().max(64).nullish() }))
    .min(1)
    .max(2),
});
const attestationQuery = z.object({ model: z.string().min(1), nonce: z.string().regex(NONCE_HEX, 'must be 32 bytes (64 hex characters)') });
const completionBody = z.strictObject({
  model: z.string().min(1),
  clientKey: publicKey,
  modelKey: publicKey,
  // Sealed to the worker (hex envelopes): only it can open them.
  messages: z
    .array(z.strictObject({ role: z.enum(['system', 'user', 'assistant']), content: z.string().max(4 * 1024 * 1024) }))
    .min(1)
    .max(500),
  maxTokens: z.number().int().positive().optional(),
});

/** The largest private-chat body: a long conversation, sealed (hex doubles its size). */
const COMPLETION_BODY_LIMIT = 16 * 1024 * 1024;

export function privateChatRoutes(deps: AppDeps) {
  const { svc } = deps;
  const e2eeModel = (id: string) => {
    const m = resolveModel(svc.catalogue, id);
    if (!m.capabilities.e2ee)
      throw new ApiError('INVALID_REQUEST', `Model ${m.id} cannot be used in private chats: it does not support end-to-end encryption`, { param: 'model' });
    return m;
  };
  // Private chats seal to this server's own worker: an app that takes its answers from another API has none.
  const refuseRemote = () => {
    if (deps.app.remote) throw new ApiError('NOT_FOUND', 'Private chats need this server to answer: this app takes its answers from an external API');
  };

  return {
    privateVault: appRoute(deps, 'session', async ({ session: { user } }) => json({ vault: await privateChats(svc.store, user.id).vault() })),

    createPrivateVault: appRoute(deps, { auth: 'session+csrf', body: vaultBody }, async ({ session: { user }, body }) =>
      json({ vault: await privateChats(svc.store, user.id).createVault(body.salt, body.check) }, 201),
    ),

    privateAttestation: appRoute(deps, { auth: 'session', query: attestationQuery }, async ({ query }) => {
      refuseRemote();
      const model = e2eeModel(query.model);
      const a = await svc.e2ee.attestation(model.id, query.nonce);
      const body: PrivateAttestation = {
        model: model.id,
        nonce: String(a.nonce),
        signingKey: String(a.signing_key),
        signingAddress: String(a.signing_address),
        verified: a.verified === true,
        teeProvider: String(a.tee_provider),
      };
      return json(body);
    }),

    listPrivateChats: appRoute(deps, 'session', async ({ session: { user } }) => json({ chats: await privateChats(svc.store, user.id).list() })),

    createPrivateChat: appRoute(deps, { auth: 'session+csrf', body: chatBody }, async ({ session: { user }, body }) => {
      e2eeModel(body.modelId);
      return json({ chat: await privateChats(svc.store, user.id).create(body.title, body.modelId) }, 201);
    }),

    getPrivateChat: appRoute(deps, 'session', async ({ params, session: { user } }) => {
      const chats = privateChats(svc.store, user.id);
      return json({ chat: await chats.chat(params.id ?? ''), messages: await chats.messages(params.id ?? '') });
    }),

    renamePrivateChat: appRoute(deps, { auth: 'session+csrf', body: renameBody }, async ({ params, session: { user }, body }) =>
      json({ chat: await privateChats(svc.store, user.id).rename(params.id ?? '', body.title) }),
    ),

    deletePrivateChat: appRoute(deps, 'session+csrf', async ({ params, session: { user } }) => {
      await privateChats(svc.store, user.id).remove(params.id ?? '');
      return noContent();
    }),

    appendPrivateTurn: appRoute(deps, { auth: 'session+csrf', body: turnBody }, async ({ params, session: { user }, body }) =>
      json({ messages: await privateChats(svc.store, user.id).append(params.id ?? '', body.messages) }, 201),
    ),

    /** The worker's sealed answer, relayed as it comes (SSE); its request id (CF-RAY) is the usage row's. */
    privateCompletion: appRoute(
      deps,
      { auth: 'session+csrf', body: completionBody, bodyLimit: COMPLETION_BODY_LIMIT },
      async ({ requestId, signal, session: { user }, body }) => {
        refuseRemote();
        const model = e2eeModel(body.model);
        const wire = svc.config.wire;
        const request = {
          model: model.id,
          messages: body.messages,
          stream: true,
          stream_options: { include_usage: true },
          ...(body.maxTokens ? { max_completion_tokens: body.maxTokens } : {}),
          [wire.params]: { enable_e2ee: true },
        };
        const bytes = Buffer.from(JSON.stringify(request));
        const principal = await principalForUser(svc.store, user);
        const run = await startSealedChat(
          svc,
          { principal, requestId, signal, responseHeaders: {} },
          {
            body: request,
            bytes,
            clientKey: body.clientKey.toLowerCase(),
            modelKey: body.modelKey.toLowerCase(),
            params: { enable_e2ee: true },
          },
        );
        const encoder = new TextEncoder();
        const stream = new ReadableStream<Uint8Array>({
          async pull(controller) {
            const next = await run.events.next().catch((e: unknown) => ({ done: true as const, error: e }));
            if (next.done) controller.close();
            else controller.enqueue(encoder.encode(next.value));
          },
          async cancel() {
            await run.events.return(undefined);
          },
        });
        return new Response(stream, {
          status: 200,
          headers: { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', 'x-accel-buffering': 'no' },
        });
      },
    ),
  };
}
