// The knowledge indexer's and retriever's embeddings (lib/knowledge's Embedder): the same metered call as
// POST /embeddings, made for a user through the principal of their server-held key, so every passage and question
// embedded is billed to the user who uploaded or asked, with its own usage row.
import type { Embedder } from '../knowledge/service.ts';
import { ApiError } from '../api/errors.ts';
import { newRequestId } from '../http/request-id.ts';
import { getUser, principalForUser } from '../users/users.ts';
import { type EmbeddingsDeps, runEmbeddings } from './pipeline.ts';

export function knowledgeEmbedder(deps: EmbeddingsDeps): Embedder {
  return {
    model() {
      const all = deps.catalogue.models.filter((m) => m.type === 'embedding');
      return (all.find((m) => m.traits.includes('default')) ?? all[0])?.id;
    },
    async embed(userId, model, inputs, signal) {
      const user = await getUser(deps.store, userId);
      if (!user) throw new ApiError('NOT_FOUND', 'The user who owns this knowledge is gone');
      const principal = await principalForUser(deps.store, user);
      const result = await runEmbeddings(
        deps,
        { principal, requestId: newRequestId(), signal, responseHeaders: {} },
        { model, input: inputs, encoding_format: 'float' },
      );
      return (result.body.data as { embedding: number[] }[]).map((d) => d.embedding);
    },
  };
}
