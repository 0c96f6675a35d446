// Preloaded (`--import`) into the Portkey gateway for the streaming runs only. Portkey 1.15.2 appends headers to the
// Response it relays; under @hono/node-server newer than 1.14.2 (installed: 1.19) that Response keeps the upstream
// fetch's immutable headers, so every streamed chat completion fails with "TypeError: immutable"
// (Portkey-AI/gateway#1389). node-server swaps in its own Response class when the server starts; putting the
// platform's class back right after makes `new Response(body, upstream)` copy the headers, as the fetch spec says,
// and the streams work. JSON answers are measured on an unmodified instance.
const NativeResponse = globalThis.Response;
const timer = setInterval(() => {
  if (globalThis.Response === NativeResponse) return;
  Object.defineProperty(globalThis, 'Response', { value: NativeResponse, writable: true, configurable: true });
  clearInterval(timer);
}, 2);
