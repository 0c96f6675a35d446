// An OpenAI-compatible upstream in its own process, for tests that time the server's event loop while it forwards
// megabytes: the scripted engine runs in the test's process, so its own parsing would show in those timings. Each
// chat completion answers with what it received (the bytes, and the characters of each message's text), so a test
// can tell that the whole body arrived and parsed; embeddings are BULK_DIMENSIONS floats per input (the request's
// `dimensions` when it names one), component j of input i being ((i * 31 + j) % 1000) / 1000 - 0.5, so a test can
// check any of them. `node e2e/support/bulk-upstream.ts` prints its base URL.
import { type ChildProcess, spawn } from 'node:child_process';
import http from 'node:http';
import { fileURLToPath } from 'node:url';

export interface BulkUpstream {
  /** http://127.0.0.1:PORT/v1 */
  url: string;
  proc: ChildProcess;
  close(): Promise<void>;
}

/** Starts the upstream in a child process and waits for its URL. */
export async function startBulkUpstream(): Promise<BulkUpstream> {
  const proc = spawn(process.execPath, [fileURLToPath(import.meta.url)], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve, reject) => {
    proc.stdout!.once('data', (d) => resolve(String(d).trim()));
    proc.once('exit', (code) => reject(new Error(`the bulk upstream exited (${code})`)));
  });
  const exited = new Promise((resolve) => proc.once('exit', resolve));
  return {
    url,
    proc,
    close: async () => {
      proc.kill();
      await exited;
    },
  };
}

function serve(): void {
  const server = http.createServer((req, res) => {
    const answer = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (req.method === 'GET' && req.url === '/v1/models') return answer(200, { object: 'list', data: [{ id: 'bulk', object: 'model' }] });
    if (req.url === '/v1/embeddings') return embeddings(req, answer);
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const bytes = Buffer.concat(chunks);
      let chars: number[];
      try {
        const body = JSON.parse(bytes.toString('utf8')) as { messages: { content: unknown }[] };
        chars = body.messages.map((m) => (typeof m.content === 'string' ? m.content.length : JSON.stringify(m.content).length));
      } catch (e) {
        return answer(400, { error: { message: `not JSON: ${(e as Error).message}` } });
      }
      answer(200, {
        id: 'chatcmpl-bulk',
        object: 'chat.completion',
        created: Math.floor(Date.now() / 1000),
        model: 'bulk',
        choices: [{ index: 0, message: { role: 'assistant', content: JSON.stringify({ bytes: bytes.length, chars }) }, finish_reason: 'stop' }],
        usage: { prompt_tokens: Math.ceil(bytes.length / 4), completion_tokens: 1, total_tokens: Math.ceil(bytes.length / 4) + 1 },
      });
    });
  });
  server.listen(0, '127.0.0.1', () => {
    const { port } = server.address() as { port: number };
    process.stdout.write(`http://127.0.0.1:${port}/v1\n`);
  });
}

export const BULK_DIMENSIONS = 3072;

/** Component j of input i's vector, as the upstream sends it. */
export const bulkComponent = (i: number, j: number) => ((i * 31 + j) % 1000) / 1000 - 0.5;

function embeddings(req: http.IncomingMessage, answer: (status: number, body: unknown) => void): void {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { input: string[]; dimensions?: number };
    const dims = body.dimensions ?? BULK_DIMENSIONS;
    const data = body.input.map((_, i) => ({ object: 'embedding', index: i, embedding: Array.from({ length: dims }, (_, j) => bulkComponent(i, j)) }));
    const words = body.input.reduce((n, t) => n + t.split(/\s+/).length, 0);
    answer(200, { object: 'list', model: 'bulk', data, usage: { prompt_tokens: words, total_tokens: words } });
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) serve();
