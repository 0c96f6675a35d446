// The knowledge indexer's and retriever's embeddings (lib/knowledge's Embedder): the same metered call as
// POST /embeddings, made for a user through the principal of their server-held key, so every passage and question
// embedded is billed to the user who uploaded or asked, with its own usage row.
import type { Embedder } from '../knowledge/service.ts';
import { ApiError, isApiError } from '../api/errors.ts';
import { newRequestId } from '../http/request-id.ts';
import { getUser, principalForUser } from '../users/users.ts';
import { type EmbeddingsDeps, runEmbeddings } from './pipeline.ts';
import type { Vector } from '../engines/text/vectors.ts';

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
      const run = async (input: string[]) => {
        const ctx = { principal, requestId: newRequestId(), signal, responseHeaders: {} };
        const result = await runEmbeddings(deps, ctx, { model, input, encoding_format: 'float' });
        return (result.body.data as { embedding: Vector }[]).map((d) => Array.from(d.embedding));
      };
      try {
        return await run(inputs);
      } catch (e) {
        // A passage longer than the model takes (a tokenizer that spends about a token a byte): what surely fits, at
        // most a token a byte, is embedded instead. The refused call was not billed (its hold was released).
        const limit = deps.catalogue.byId.get(model)?.embedding?.max_input_tokens;
        if (!(isApiError(e) && e.code === 'CONTEXT_LENGTH_EXCEEDED' && limit)) throw e;
        return run(inputs.map((t) => clipBytes(t, Math.max(16, limit - 8))));
      }
    },
  };
}

/** The longest prefix of `text` of at most `bytes` UTF-8 bytes, cut between characters. */
function clipBytes(text: string, bytes: number): string {
  const buf = Buffer.from(text);
  if (buf.length <= bytes) return text;
  let end = bytes;
  while (end > 0 && (buf[end] & 0xc0) === 0x80) end--;
  return buf.subarray(0, end).toString();
}
