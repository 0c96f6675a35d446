// The failures and waits a request can script: OpenAI-shaped error bodies, the HTTP error that [[status:CODE]] or
// [[context]] asks for (chat and embeddings alike, each with its own context-length message), the in-band error event
// that [[error_mid]] sends mid-stream, and the sleep behind [[delay]], [[slow]] and the engine-wide delay. Socket
// kills ([[fail_mid]]) and [[hang]] are a matter of when to stop writing, so they live with the writers in chat.ts
// and stream.ts.

import type { Script } from './markers.ts';

export type ErrorBody = ReturnType<typeof errorBody>;

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export function errorBody(message: string, type: string, param: string | null = null, code: string | null = null) {
  return { error: { message, type, param, code } };
}

function statusError(status: number) {
  if (status === 400) return errorBody(`scripted bad request (scripted status ${status})`, 'invalid_request_error');
  const type =
    status === 401
      ? 'authentication_error'
      : status === 403
        ? 'permission_error'
        : status === 404
          ? 'not_found_error'
          : status === 429
            ? 'rate_limit_error'
            : status >= 500
              ? 'server_error'
              : 'invalid_request_error';
  return errorBody(`scripted status ${status}`, type, null, status === 429 ? 'rate_limit_exceeded' : null);
}

/** The error answer a script asks for ([[context]] before [[status:CODE]]), or undefined when it asks for none. */
export function scriptedError(s: Script, contextError: () => ErrorBody): { status: number; body: ErrorBody } | undefined {
  if (s.context) return { status: 400, body: contextError() };
  if (s.status !== undefined) return { status: s.status, body: statusError(s.status) };
  return undefined;
}

/** vLLM's chat context-length error, for a prompt of `promptTokens` tokens. */
export function chatContextError(promptTokens: number): ErrorBody {
  const p = promptTokens;
  return errorBody(
    `This model's maximum context length is 4096 tokens. However, you requested ${4096 + p} tokens ` +
      `(${4096 + p} in the messages, 0 in the completion). Please reduce the length of the messages or completion.`,
    'invalid_request_error',
    'messages',
    'context_length_exceeded',
  );
}

export function embeddingsContextError(): ErrorBody {
  return errorBody("This model's maximum context length is 512 tokens.", 'invalid_request_error', 'input', 'context_length_exceeded');
}

/** [[error_mid]]'s in-band error event. */
export const MID_STREAM_ERROR = `data: ${JSON.stringify({ error: { message: 'upstream exploded', type: 'server_error' } })}\n\n`;
