// GET /tee/attestation and GET /tee/signature: the E2EE worker's key and attestation for a model, and the signed
// receipt of an E2EE completion. Attestation is open to anyone (the public API's rule), per IP; a signature only to
// the account whose request it was.
import { ApiError } from '../api/errors.ts';
import { type RequestCtx, principalOf } from '../http/context.ts';
import { json, type Reply } from '../http/reply.ts';
import type { ApiInput } from '../http/route.ts';
import { z } from 'zod';
import { resolveModel } from '../models/catalogue.ts';
import { NONCE_HEX } from './attestation.ts';

const model = z.string({ error: 'is required' }).min(1, 'is required').max(200);
export const attestationQuery = z.object({ model, nonce: z.string().regex(NONCE_HEX, 'must be exactly 32 bytes (64 hex characters)') });
export const signatureQuery = z.object({ model, request_id: z.string().regex(/^chatcmpl-.{1,200}$/, 'must be the completion id (chatcmpl-…)') });

function e2eeModel(ctx: RequestCtx, name: string) {
  const model = resolveModel(ctx.svc.catalogue, name);
  if (!model.capabilities.e2ee) throw new ApiError('INVALID_REQUEST', `Model ${model.id} does not support end-to-end encryption`, { param: 'model' });
  return model;
}

export async function teeAttestation(ctx: RequestCtx, { query }: ApiInput<unknown, z.output<typeof attestationQuery>>): Promise<Reply> {
  const model = e2eeModel(ctx, query.model);
  return json(await ctx.svc.e2ee.attestation(model.id, query.nonce));
}

export async function teeSignature(ctx: RequestCtx, { query }: ApiInput<unknown, z.output<typeof signatureQuery>>): Promise<Reply> {
  const model = e2eeModel(ctx, query.model);
  const id = query.request_id;
  const requestId = id.slice('chatcmpl-'.length);
  const notFound = () => new ApiError('NOT_FOUND', `No E2EE signature for ${id}`);
  // Only the account that made the request may read its receipt (the usage row says whose it was).
  const mine = await ctx.svc.store.get('SELECT 1 FROM usage WHERE account_id = $1 AND request_id = $2 AND model_id = $3', [
    principalOf(ctx).accountId,
    requestId,
    model.id,
  ]);
  if (!mine) throw notFound();
  const receipt = await ctx.svc.e2ee.receipt(id);
  if (!receipt) throw notFound();
  return json({
    model: receipt.model,
    request_id: receipt.requestId,
    text: receipt.text,
    signature: receipt.signature,
    signing_address: receipt.signing_address,
    signing_algo: 'ecdsa',
    payload: { request_hash: receipt.request_hash, response_hash: receipt.response_hash, timestamp: receipt.timestamp },
  });
}
