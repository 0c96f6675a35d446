// GET /tee/attestation and GET /tee/signature: the E2EE worker's key and attestation for a model, and the signed
// receipt of an E2EE completion. Attestation is open to anyone (the public API's rule), per IP; a signature only to
// the account whose request it was.
import { ApiError } from '../api/errors.ts';
import { type RequestCtx, principalOf } from '../http/context.ts';
import { json, type Reply } from '../http/reply.ts';
import { resolveModel } from '../models/catalogue.ts';
import { NONCE_HEX } from './attestation.ts';

function e2eeModel(ctx: RequestCtx) {
  const name = ctx.url.searchParams.get('model');
  if (!name) throw new ApiError('INVALID_REQUEST', 'model is required', { param: 'model' });
  const model = resolveModel(ctx.svc.catalogue, name);
  if (!model.capabilities.e2ee) throw new ApiError('INVALID_REQUEST', `Model ${model.id} does not support end-to-end encryption`, { param: 'model' });
  return model;
}

export async function teeAttestation(ctx: RequestCtx): Promise<Reply> {
  const model = e2eeModel(ctx);
  const nonce = ctx.url.searchParams.get('nonce') ?? '';
  if (!NONCE_HEX.test(nonce)) throw new ApiError('INVALID_REQUEST', 'Nonce must be exactly 32 bytes (64 hex characters)', { param: 'nonce' });
  return json(await ctx.svc.e2ee.attestation(model.id, nonce));
}

export async function teeSignature(ctx: RequestCtx): Promise<Reply> {
  const model = e2eeModel(ctx);
  const id = ctx.url.searchParams.get('request_id') ?? '';
  const requestId = id.startsWith('chatcmpl-') ? id.slice('chatcmpl-'.length) : '';
  if (!requestId) throw new ApiError('INVALID_REQUEST', 'request_id must be the completion id (chatcmpl-…)', { param: 'request_id' });
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
