// Which model answers a turn: the one asked for, else the chat character's own, else the default — looked up in the
// same catalogue the model picker shows (this server's, or the remote API's in remote mode).
import { ApiError, isApiError } from '../../api/errors.ts';
import type { Message } from '../../conversations/conversations.ts';
import type { CatalogueSource } from '../../catalogue/source.ts';

export interface TurnModel {
  id: string;
  vision: boolean;
  /** It can call tools (the catalogue's function-calling capability): the chat's server-side tools are offered to it. */
  functionCalling: boolean;
}

const hasImages = (messages: Message[]) => messages.some((m) => m.attachments.some((a) => a.kind === 'image'));

/** The turn's model (404 MODEL_NOT_FOUND), refused when the history it will read has images it cannot see. */
export async function modelForTurn(source: CatalogueSource, requested: string | null, characterSlug: string | null, history: Message[]): Promise<TurnModel> {
  let id = requested;
  if (!id && characterSlug) {
    // A character removed since the chat began just leaves the default in charge.
    id = await source.character(characterSlug).then(
      (c) => c.modelId,
      (e) => {
        if (isApiError(e) && e.code === 'CHARACTER_NOT_FOUND') return null;
        throw e;
      },
    );
  }
  let model;
  if (id) model = await source.model(id);
  else {
    const all = await source.models();
    model = all.find((m) => m.isDefault) ?? all[0];
    if (!model) throw new ApiError('MODEL_NOT_FOUND', 'No chat model is available');
  }
  const turn = { id: model.id, vision: model.capabilities.vision, functionCalling: model.capabilities.functionCalling };
  if (!turn.vision && hasImages(history)) {
    throw new ApiError('UNSUPPORTED_CONTENT', `Model ${turn.id} does not support image input, and this conversation has images: choose a model with vision`, {
      param: 'modelId',
    });
  }
  return turn;
}
