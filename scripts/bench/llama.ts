#!/usr/bin/env node
// The in-process llama engine's benchmark (`npm run bench:llama`): a generated mid-size GGUF (BENCH_LLAMA_MB, 100 by
// default: the demo model with wide feed-forward layers), aggregate completion tokens/s at 1, 4 and 8 concurrent
// requests with `sequences` batching off (1 sequence: requests take turns) and on (8 sequences decoded together),
// through Lagoon (auth, limits, ledger and usage rows on) and with node-llama-cpp driven directly with the same
// settings (the limit). Then prefix-cache reuse: time to first token of turn 1 and turn 5 of one conversation.
// Last line: `bench-llama: …` with every figure. BENCH_LLAMA_TOKENS (64) tokens per request at most, BENCH_LLAMA_THREADS
// (2), BENCH_LLAMA_REQUESTS (16) per figure and side, in BENCH_LLAMA_ROUNDS (4)
// interleaved rounds.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type ChatWrapper, getLlama, type LlamaContextSequence, type LlamaModel, resolveChatWrapper } from 'node-llama-cpp';
import { request } from 'undici';
import { DEMO_WORDS } from '../../lib/engines/text/llama/demo-model.ts';
import { cli, freePort, start, stop } from './procs.ts';

const env = process.env;
const SIZE_MB = Number(env.BENCH_LLAMA_MB ?? 100);
const TOKENS = Number(env.BENCH_LLAMA_TOKENS ?? 64);
const THREADS = Number(env.BENCH_LLAMA_THREADS ?? 2);
const REQUESTS = Number(env.BENCH_LLAMA_REQUESTS ?? 16);
const ROUNDS = Number(env.BENCH_LLAMA_ROUNDS ?? 4);
const CONTEXT = 1024;
const BATCHED = 8;
const LEVELS = [1, 4, 8];
const SETTINGS = [
  { name: 'batching off', sequences: 1 },
  { name: 'batching on', sequences: BATCHED },
];

// Request i of a run sends prompt i with seed i on both sides, so they generate the same tokens; prompts differ from
// their first word on, so no request reuses another's cached prefix.
const words = (n: number, from: number) => Array.from({ length: n }, (_, i) => DEMO_WORDS[(from + i * 7) % DEMO_WORDS.length]).join(' ');
const promptOf = (i: number) => `${words(24, i * 13)}.`;

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lagoon-bench-llama-'));
const model = path.join(dataDir, 'demo-mid.gguf');
const summary: Record<string, string> = {};
type Run = (i: number) => Promise<number>;
try {
  execFileSync(process.execPath, ['scripts/make-demo-gguf.ts', model, '1', '--size-mb', String(SIZE_MB)], { stdio: ['ignore', 'ignore', 'inherit'] });
  const mb = fs.statSync(model).size / 1e6;
  console.log(
    `model: ${mb.toFixed(0)} MB demo GGUF (F32), up to ${TOKENS} tokens per request, ${REQUESTS} requests per figure and side in ${ROUNDS} interleaved rounds, ${THREADS} threads, ${os.cpus().length} CPUs, load ${os.loadavg()[0].toFixed(1)}`,
  );
  summary.model_mb = mb.toFixed(0);
  const direct = await directEngine();
  const lagoon = await startLagoon();
  try {
    for (const s of SETTINGS) {
      const [d1, l1] = [direct.run(s.sequences), lagoon.run(s.sequences)];
      // Warm-up (and, through Lagoon, the model's load): a few requests each, or the first figure runs cold.
      for (let i = 0; i < 4; i++) await Promise.all([d1(1000 + i), l1(1000 + i)]);
      for (const c of LEVELS) {
        const [d, l] = await figure(c, d1, l1);
        console.log(
          `${s.name} (sequences ${s.sequences}), ${c} concurrent: direct ${tps(d).toFixed(1)} tok/s (${(d.tokens / d.requests).toFixed(1)} per request), lagoon ${tps(l).toFixed(1)} tok/s (${(l.tokens / l.requests).toFixed(1)} per request), ${((100 * tps(l)) / tps(d)).toFixed(0)} %`,
        );
        const tag = `seq${s.sequences}_c${c}`;
        summary[`direct_${tag}`] = tps(d).toFixed(1);
        summary[`lagoon_${tag}`] = tps(l).toFixed(1);
      }
    }
    const p = await conversation(lagoon.url, lagoon.headers);
    console.log(
      `prefix cache, one conversation (sequences 1): ttft turn 1 ${p.ttft[0].toFixed(1)} ms (${p.prompt[0]} prompt tokens, ${p.cached[0]} cached), turn 5 ${p.ttft[4].toFixed(1)} ms (${p.prompt[4]} prompt tokens, ${p.cached[4]} cached)`,
    );
    Object.assign(summary, { ttft_turn1_ms: p.ttft[0].toFixed(1), ttft_turn5_ms: p.ttft[4].toFixed(1), turn5_cached_tokens: `${p.cached[4]}/${p.prompt[4]}` });
  } finally {
    await stop(lagoon.child);
    await direct.close();
  }
  console.log(
    `bench-llama: ${Object.entries(summary)
      .map(([k, v]) => `${k}=${v}`)
      .join(' ')}`,
  );
} finally {
  fs.rmSync(dataDir, { recursive: true, force: true });
}

/** node-llama-cpp alone: the same model, context and sampling settings; requests take free sequences in turn. */
async function directEngine(): Promise<{ run: (sequences: number) => Run; close: () => Promise<void> }> {
  const llama = await getLlama({ gpu: false });
  const loaded = await llama.loadModel({ modelPath: model });
  const wrapper = resolveChatWrapper(loaded, { type: 'jinjaTemplate', warningLogs: false });
  const runs = new Map<number, Run>();
  for (const s of SETTINGS) {
    const context = await loaded.createContext({ contextSize: CONTEXT, sequences: s.sequences, threads: THREADS });
    const free = Array.from({ length: s.sequences }, () => context.getSequence());
    const waiting: ((seq: LlamaContextSequence) => void)[] = [];
    const take = () => free.pop() ?? new Promise<LlamaContextSequence>((r) => waiting.push(r));
    const give = (seq: LlamaContextSequence) => (waiting.length ? waiting.shift()!(seq) : free.push(seq));
    runs.set(s.sequences, async (i) => {
      const seq = await take();
      try {
        return await generate(loaded, wrapper, seq, i);
      } finally {
        give(seq);
      }
    });
  }
  return { run: (n) => runs.get(n)!, close: () => loaded.dispose() };
}

/** One request's work as the engine does it: prefill, then sample (temperature 1) until end of turn or TOKENS. */
async function generate(loaded: LlamaModel, wrapper: ChatWrapper, seq: LlamaContextSequence, i: number): Promise<number> {
  if (seq.nextTokenIndex > 0) await seq.eraseContextTokenRanges([{ start: 0, end: seq.nextTokenIndex }]);
  // The prompt as the engine renders it: the GGUF's chat template around one user message.
  const state = wrapper.generateContextState({ chatHistory: [{ type: 'user', text: promptOf(i) }] });
  const tokens = state.contextText.tokenize(loaded.tokenizer);
  await seq.evaluateWithoutGeneratingNewTokens(tokens.slice(0, -1));
  let n = 0;
  for await (const out of seq.evaluateWithMetadata([tokens[tokens.length - 1]], {}, { temperature: 1, seed: i + 1, yieldEogToken: true })) {
    n++;
    if (n >= TOKENS || loaded.isEogToken(out.token)) break;
  }
  return n;
}

/** Completion tokens and busy time of one side of a figure, summed over its rounds. */
interface Tally {
  tokens: number;
  ms: number;
  requests: number;
}

/**
 * One figure: ROUNDS rounds, each sending the same requests (prompt i, seed i) first directly, then through Lagoon,
 * by `c` clients back to back. Interleaving round by round keeps a change in the machine's load from landing on one
 * side only; each side's tokens/s is its tokens over its own time.
 */
async function figure(c: number, direct: Run, lagoon: Run): Promise<[Tally, Tally]> {
  const perRound = Math.max(c, Math.ceil(REQUESTS / ROUNDS));
  const sides: [Tally, Tally] = [
    { tokens: 0, ms: 0, requests: 0 },
    { tokens: 0, ms: 0, requests: 0 },
  ];
  for (let r = 0; r < ROUNDS; r++) {
    for (const [side, run] of [direct, lagoon].entries()) {
      let next = r * perRound;
      const end = next + perRound;
      const t0 = performance.now();
      await Promise.all(
        Array.from({ length: c }, async () => {
          while (next < end) {
            const n = await run(next++); // not `tokens += await …`: that reads the total before the wait
            sides[side].tokens += n;
            sides[side].requests++;
          }
        }),
      );
      sides[side].ms += performance.now() - t0;
    }
  }
  return sides;
}

function tps(t: Tally): number {
  return t.tokens / (t.ms / 1000);
}

/** Lagoon on its embedded store, one catalogue model per setting (the same file), auth, limits and ledger on. */
async function startLagoon() {
  const entry = (sequences: number) => ({
    id: `llama-seq${sequences}`,
    name: `llama-seq${sequences}`,
    type: 'text',
    tier: 'XS',
    pricing: { input_usd: 0.1, output_usd: 0.2, input_diem: 0.1, output_diem: 0.2 },
    context_length: CONTEXT,
    max_completion_tokens: TOKENS,
    traits: [],
    engine: { kind: 'llama', path: model, sequences, contextSize: CONTEXT, threads: THREADS, maxQueue: 64 },
  });
  const catalogue = path.join(dataDir, 'models.json');
  fs.writeFileSync(catalogue, JSON.stringify({ models: SETTINGS.map((s) => entry(s.sequences)) }));
  const limits = path.join(dataDir, 'limits.json');
  fs.writeFileSync(limits, JSON.stringify({ text: { default: { XS: { rpm: 100_000_000, tpm: 1_000_000_000_000 } } } }));
  const accountId = await cli(dataDir, 'account', 'create', '--name', 'bench');
  const key = await cli(dataDir, 'key', 'create', '--account', accountId, '--type', 'INFERENCE');
  await cli(dataDir, 'credit', 'grant', '--account', accountId, '--usd', '100000');
  const port = await freePort();
  const child = await start(
    ['scripts/serve.ts'],
    { PORT: String(port), HOST: '127.0.0.1', LAGOON_DATA_DIR: dataDir, LAGOON_MODELS: catalogue, LAGOON_RATE_LIMITS: limits, LAGOON_NO_APP: '1' },
    /listening/,
  );
  const url = `http://127.0.0.1:${port}/api/v1/chat/completions`;
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${key}` };
  const run =
    (sequences: number): Run =>
    async (i) => {
      const body = JSON.stringify({ model: `llama-seq${sequences}`, messages: [{ role: 'user', content: promptOf(i) }], max_tokens: TOKENS, seed: i + 1 });
      const res = await request(url, { method: 'POST', headers, body });
      const json = (await res.body.json()) as { usage?: { completion_tokens: number } };
      if (res.statusCode !== 200 || !json.usage) throw new Error(`lagoon answered ${res.statusCode}: ${JSON.stringify(json).slice(0, 300)}`);
      return json.usage.completion_tokens;
    };
  return { child, url, headers, run };
}

/**
 * Five turns of one conversation on the 1-sequence model, a long system prompt first: each turn resends the history,
 * which the sequence still holds, so only the new part is evaluated. Streamed, to time the first token.
 */
async function conversation(url: string, headers: Record<string, string>) {
  const messages: { role: string; content: string }[] = [{ role: 'system', content: `${words(300, 5)}.` }];
  const result = { ttft: [] as number[], prompt: [] as number[], cached: [] as number[] };
  for (let turn = 1; turn <= 5; turn++) {
    messages.push({ role: 'user', content: `${words(12, turn * 31)}.` });
    const body = JSON.stringify({ model: 'llama-seq1', messages, max_tokens: 16, seed: turn, stream: true, stream_options: { include_usage: true } });
    const t = await streamedTurn(url, headers, body);
    result.ttft.push(t.ttftMs);
    result.prompt.push(t.promptTokens);
    result.cached.push(t.cachedTokens);
    messages.push({ role: 'assistant', content: t.text });
  }
  return result;
}

/** One streamed turn: time to the first content delta, the reply's text and the usage chunk's prompt figures. */
async function streamedTurn(url: string, headers: Record<string, string>, body: string) {
  const t0 = performance.now();
  const res = await request(url, { method: 'POST', headers, body });
  if (res.statusCode !== 200) throw new Error(`lagoon answered ${res.statusCode}: ${(await res.body.text()).slice(0, 300)}`);
  let ttftMs = Number.NaN;
  let raw = '';
  for await (const piece of res.body) {
    raw += piece.toString();
    if (Number.isNaN(ttftMs) && /"content":"[^"]/.test(raw)) ttftMs = performance.now() - t0;
  }
  let text = '';
  let usage: { prompt_tokens: number; prompt_tokens_details?: { cached_tokens?: number } | null } | undefined;
  for (const line of raw.split('\n')) {
    if (!line.startsWith('data: {')) continue;
    const event = JSON.parse(line.slice(6)) as { choices?: { delta?: { content?: string } }[]; usage?: typeof usage };
    text += event.choices?.[0]?.delta?.content ?? '';
    usage = event.usage ?? usage;
  }
  if (!usage) throw new Error('the stream carried no usage chunk');
  return { ttftMs, text, promptTokens: usage.prompt_tokens, cachedTokens: usage.prompt_tokens_details?.cached_tokens ?? 0 };
}
