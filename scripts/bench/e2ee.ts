#!/usr/bin/env node
// Benchmark: what end-to-end encryption costs. One server (in process, the scripted engine as its upstream) and its
// real E2EE worker (a child process), measured in one run so the figures compare:
//   1. seal and open per field, in microseconds of CPU (a one-token delta; a 2 KB message);
//   2. time to first token at c=1, a plain stream against a sealed one (interleaved rounds, medians), and the
//      added time;
//   3. CPU per delta of a 64-delta stream, gateway and worker together, sealed against plain.
// Last line: `bench-e2ee: seal_us=… open_2kb_us=… ttft_plain_ms=… ttft_e2ee_ms=… added_ttft_ms=… cpu_per_delta_plain_us=…
// cpu_per_delta_e2ee_us=…`.
import { readFileSync } from 'node:fs';
import { newKeyPair, open, seal } from '../../lib/e2ee/envelope.ts';
import { scriptedModel, startHarness } from '../../e2e/support/harness.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 40);
const DELTAS = 64;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const f = (n: number, d = 1) => n.toFixed(d);

/** CPU seconds of a process (user + system), from /proc. */
function cpuOf(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

// 1. The envelope alone.
const client = newKeyPair();
const worker = newKeyPair();
const N = 2000;
let t = process.cpuUsage();
for (let i = 0; i < N; i++) seal(client.publicKey, ' word');
const sealCpu = process.cpuUsage(t);
const sealUs = (sealCpu.user + sealCpu.system) / N;
const message = seal(worker.publicKey, 'x'.repeat(2048));
t = process.cpuUsage();
for (let i = 0; i < N; i++) open(worker.secretKey, message);
const cpu = process.cpuUsage(t);
const openUs = (cpu.user + cpu.system) / N;
console.log(`envelope: seal a one-token delta ${f(sealUs)} µs CPU, open a 2 KB message ${f(openUs)} µs CPU`);

// 2 and 3. Through the server and its worker.
const h = await startHarness({ models: (url) => [scriptedModel('e2ee-model', url, { capabilities: { e2ee: true } })] });
try {
  const { key } = await h.newAccount({ usd: 1000 });
  const nonce = Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('hex');
  const att = (await (await fetch(`${h.base}/tee/attestation?model=e2ee-model&nonce=${nonce}`)).json()) as { signing_key: string };
  const modelKey = Buffer.from(att.signing_key, 'hex');
  const me = newKeyPair();
  const meHex = Buffer.from(me.publicKey).toString('hex');
  const plainBody = (tokens: number) =>
    JSON.stringify({ model: 'e2ee-model', stream: true, messages: [{ role: 'user', content: `[[tokens:${tokens}]] hello` }] });
  const sealedBody = (tokens: number) =>
    JSON.stringify({
      model: 'e2ee-model',
      stream: true,
      service_parameters: { enable_e2ee: true },
      // Each request seals afresh (a resend of the same envelopes is refused as a replay).
      messages: [{ role: 'user', content: seal(modelKey, `[[tokens:${tokens}]] hello`, me) }],
    });
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${key}` };
  const e2eeHeaders = {
    ...headers,
    'x-service-tee-client-pub-key': meHex,
    'x-service-tee-model-pub-key': att.signing_key,
    'x-service-tee-signing-algo': 'ecdsa',
  };

  /** Time to the first delta with content, and the whole stream's text. */
  async function stream(body: string, hdrs: Record<string, string>): Promise<{ ttft: number; text: string }> {
    const start = performance.now();
    const res = await fetch(`${h.base}/chat/completions`, { method: 'POST', headers: hdrs, body });
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    let ttft = Number.NaN;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
      if (Number.isNaN(ttft) && text.includes('"content":"') && /"content":"[^"]/.test(text)) ttft = performance.now() - start;
    }
    return { ttft, text };
  }
  // Warm both paths (the worker starts, engines and pools open).
  for (let i = 0; i < 5; i++) {
    await stream(plainBody(4), headers);
    await stream(sealedBody(4), e2eeHeaders);
  }
  const plain: number[] = [];
  const sealed: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    plain.push((await stream(plainBody(4), headers)).ttft);
    sealed.push((await stream(sealedBody(4), e2eeHeaders)).ttft);
  }
  const [tp, te] = [median(plain), median(sealed)];
  console.log(`time to first token c=1 (${ROUNDS} rounds, medians): plain ${f(tp, 2)} ms, E2EE ${f(te, 2)} ms, added ${f(te - tp, 2)} ms`);

  const workerPid = (h.svc.e2ee as unknown as { child?: { pid: number } }).child?.pid;
  const cpuRun = async (body: () => string, hdrs: Record<string, string>) => {
    const before = cpuOf(process.pid) + (workerPid ? cpuOf(workerPid) : 0);
    const n = 20;
    for (let i = 0; i < n; i++) await stream(body(), hdrs);
    const after = cpuOf(process.pid) + (workerPid ? cpuOf(workerPid) : 0);
    return ((after - before) * 1e6) / (n * DELTAS);
  };
  const cpuPlain = await cpuRun(() => plainBody(DELTAS), headers);
  const cpuSealed = await cpuRun(() => sealedBody(DELTAS), e2eeHeaders);
  console.log(`CPU per delta (${DELTAS}-delta streams; gateway, scripted engine and worker): plain ${f(cpuPlain)} µs, E2EE ${f(cpuSealed)} µs`);
  console.log(
    `bench-e2ee: seal_us=${f(sealUs)} open_2kb_us=${f(openUs)} ttft_plain_ms=${f(tp, 2)} ttft_e2ee_ms=${f(te, 2)} added_ttft_ms=${f(te - tp, 2)} cpu_per_delta_plain_us=${f(cpuPlain)} cpu_per_delta_e2ee_us=${f(cpuSealed)}`,
  );
} finally {
  await h.close();
}
