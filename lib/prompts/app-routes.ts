// The prompt library's routes. A user lists their own prompts and the shared ones, and adds, edits and deletes their
// own (userPrompts: another user's prompt, or a shared one, is a plain 404 here). The shared library is changed only
// through the /operator/prompts routes, which the operator alone passes.
import { z } from 'zod';
import type { AppDeps } from '../http/app-deps.ts';
import { appRoute, json, noContent } from '../http/app-route.ts';
import { isOperator } from '../users/operator.ts';
import { MAX_PROMPT_CHARS, MAX_PROMPT_TITLE, MAX_PROMPTS, type Prompt, sharedPrompts, userPrompts } from './prompts.ts';
import type { AppPrompt, AppPromptList } from './wire.ts';

// Lengths are checked after cleaning (prompts.ts); these bounds only cap what is read.
const title = z.string().max(MAX_PROMPT_TITLE * 4);
const content = z.string().max(MAX_PROMPT_CHARS * 2);
const createBody = z.strictObject({ title, content });
const updateBody = z
  .strictObject({ title: title.optional(), content: content.optional() })
  .refine((b) => b.title !== undefined || b.content !== undefined, { message: 'Send title or content' });
const BODY_LIMIT = MAX_PROMPT_CHARS * 8 + 4096;

const toApp = (p: Prompt): AppPrompt => ({ ...p });

export function promptRoutes(deps: AppDeps) {
  const { store } = deps.svc;
  const shared = sharedPrompts(store);

  return {
    listPrompts: appRoute(deps, 'session', async ({ session }) => {
      const [own, all] = await Promise.all([userPrompts(store, session.user.id).list(), shared.list()]);
      const body: AppPromptList = {
        items: [...own, ...all].map(toApp),
        // The operator's own routes also require a second factor where the server says so; the page learns of that
        // from their answer.
        canShare: isOperator(session.user),
        max: MAX_PROMPTS,
        maxTitle: MAX_PROMPT_TITLE,
        maxChars: MAX_PROMPT_CHARS,
      };
      return json(body);
    }),

    createPrompt: appRoute(deps, { auth: 'session+csrf', body: createBody, bodyLimit: BODY_LIMIT }, async ({ session, body }) => {
      return json(toApp(await userPrompts(store, session.user.id).create(body)), 201);
    }),

    updatePrompt: appRoute(deps, { auth: 'session+csrf', body: updateBody, bodyLimit: BODY_LIMIT }, async ({ params, session, body }) => {
      return json(toApp(await userPrompts(store, session.user.id).update(params.id ?? '', body)));
    }),

    deletePrompt: appRoute(deps, 'session+csrf', async ({ params, session }) => {
      await userPrompts(store, session.user.id).remove(params.id ?? '');
      return noContent();
    }),

    operatorCreatePrompt: appRoute(deps, { auth: 'operator+csrf', body: createBody, bodyLimit: BODY_LIMIT }, async ({ body }) => {
      return json(toApp(await shared.create(body)), 201);
    }),

    operatorUpdatePrompt: appRoute(deps, { auth: 'operator+csrf', body: updateBody, bodyLimit: BODY_LIMIT }, async ({ params, body }) => {
      return json(toApp(await shared.update(params.id ?? '', body)));
    }),

    operatorDeletePrompt: appRoute(deps, 'operator+csrf', async ({ params }) => {
      await shared.remove(params.id ?? '');
      return noContent();
    }),
  };
}
