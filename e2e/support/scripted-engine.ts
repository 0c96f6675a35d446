// The scripted engine: a loopback OpenAI-compatible server (vLLM's wire shapes) that tests, browser e2e tests and the
// benchmark use as an upstream "openai" engine. Replies are steered by markers in the text of the LAST user message
// (string content, or the text parts of an array content joined by "\n"). Markers elsewhere are ignored.
//
// Markers (any combination, `[[...]]`; an argument may not contain `]]`):
//   [[echo]]               reply with the last user message's text, markers removed and trimmed
//   [[reply:TEXT]]         reply exactly TEXT (spaces, newlines and markdown allowed)
//   [[tokens:N]]           reply `w1 w2 … wN` (exactly N tokens)
//   [[markdown]]           canned markdown: heading, GFM table, list, inline math $e^{i\pi}+1=0$, ```ts code block
//   [[code]]               canned answer with a ```python code block
//   [[json]]               reply `{"answer":42}` (for response_format tests)
//   [[echo_request]]       reply JSON.stringify(request.messages), streamed in 40-character chunks (1 chunk = 1 token)
//   [[think]]              content starts `<think>Let me think this through.</think>`; tags stream split (`<thi`+`nk>`)
//   [[reasoning]]          reasoning via reasoning_content (streamed before content); counted in reasoning_tokens
//   [[tool:NAME:JSON]]     tool call to NAME with arguments JSON (sent verbatim, unvalidated); repeatable
//   [[tools2]]             two parallel tool calls to the first two request.tools, arguments `{}`
//   [[slow:MS]]            wait MS between streamed chunks (non-stream: MS × tokens before replying)
//   [[delay:MS]]           wait MS before sending response headers
//   [[fail_mid]]           stream 3 token chunks then destroy the socket (non-stream: destroy without a response)
//   [[error_mid]]          stream 3 token chunks, then an in-band `data: {"error":…}` event, then `data: [DONE]`
//   [[status:CODE]]        respond HTTP CODE with an OpenAI error body saying `scripted status CODE`
//   [[context]]            respond 400 context_length_exceeded (vLLM's message)
//   [[hang]]               never respond; the socket stays open until the client goes away
//   [[cached:N]]           usage.prompt_tokens_details.cached_tokens = N
// Reply source precedence: reply > tokens > markdown > code > json > echo_request > echo > default
// (`Hello from the scripted engine.`). Tool markers replace content (content null, finish_reason tool_calls) and only
// fire while no `tool` message follows the last user message, so agent loops get a plain answer after the tool result.
//
// Tokens: a reply splits into whitespace-separated words, each keeping its trailing whitespace (so the chunks
// concatenate back to the reply exactly). completion_tokens = tokens emitted over all choices (reasoning included;
// a tool call counts 1 + its argument fragments). prompt_tokens = whitespace-separated words in the text of ALL
// messages (string contents and text parts, markers included) + 1 per message.
//
// Streams (stream: true) count in openStreams from arrival to end, and in abortedStreams when the client leaves first
// (also while delayed or hung); [[fail_mid]]'s own socket kill is not an abort.
//
// Parameters honoured: stream, stream_options.include_usage, n, max_tokens / max_completion_tokens (→ length),
// stop (→ stop), logprobs / top_logprobs (logprob of token i is -0.1 × (i+1)); seed is ignored.
//
// Embeddings (POST /v1/embeddings): `input` is a string or an array of strings. Each input's vector is
// deterministic: mulberry32 seeded with the FNV-1a hash of the text, EMBEDDING_DIMENSIONS (16) components, or
// `dimensions` when the request sets it, L2-normalised; so equal texts get equal vectors and different texts differ.
// usage.prompt_tokens = total_tokens = whitespace-separated words over all inputs. `encoding_format: "base64"` is
// honoured (little-endian float32). Markers in any input: [[status:CODE]], [[context]] (400 context_length_exceeded),
// [[delay:MS]]; token-id arrays get 400 as on our own API. Requests are recorded in embeddingRequests.
//
// CLI: node e2e/support/scripted-engine.ts --port 8765 [--host 127.0.0.1] [--delay-ms 20] [--name scripted]
//
// This file is the one entry (types, startScriptedEngine, tokenize, hashVector, the CLI); the engine lives in
// scripted-engine/, one file per thing it scripts: server.ts (HTTP server, routes, recording, start and close),
// markers.ts (parsing the markers), tokens.ts (message text and token counting), chat.ts (a chat request, from
// arrival to answer), answer.ts (what a chat completion answers), stream.ts (streamed answers and stream accounting),
// faults.ts (scripted errors and delays) and embeddings.ts.

import path from 'node:path';
import { parseArgs } from 'node:util';
import { startScriptedEngine } from './scripted-engine/server.ts';

export { hashVector } from './scripted-engine/embeddings.ts';
export type { RecordedRequest, ScriptedEngine, ScriptedEngineOptions } from './scripted-engine/server.ts';
export { startScriptedEngine } from './scripted-engine/server.ts';
export { tokenize } from './scripted-engine/tokens.ts';

// CLI: run until killed.
if (process.argv[1] && path.resolve(process.argv[1]) === import.meta.filename) {
  const { values } = parseArgs({
    options: {
      port: { type: 'string', default: '8765' },
      host: { type: 'string', default: '127.0.0.1' },
      'delay-ms': { type: 'string', default: '0' },
      name: { type: 'string', default: 'scripted' },
    },
  });
  const engine = await startScriptedEngine({
    port: Number(values.port),
    host: values.host,
    delayMs: Number(values['delay-ms']),
    name: values.name,
  });
  console.log(engine.url);
  const stop = () => {
    engine.close().then(() => process.exit(0));
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}
