// `npx lagoon model add …`: connects a real model in one step by writing the extra catalogue file
// (LAGOON_MODELS_EXTRA, default $LAGOON_DATA_DIR/models.local.json), which ADDS models to the catalogue; the server
// reads it at its next start. Loaded by scripts/lagoon.ts only for this command, so other commands start no slower.
import { parseArgs } from 'node:util';
import { loadConfig } from '../lib/config.ts';
import { probeEngine } from '../lib/engines/health.ts';
import { probeGguf } from '../lib/engines/health-probe.ts';
import type { EngineSpec } from '../lib/models/schema.ts';
import { addToExtraFile, discoverUpstream, type EntryOptions, ggufEntry, upstreamEntry } from '../lib/models/extra-catalogue-write.ts';

export const MODEL_USAGE = `  model add --upstream URL (--model NAME | --discover) [--key-env VAR] [options]
                                             add an OpenAI-compatible upstream's model (vLLM, SGLang, Ollama,
                                             llama.cpp's server, a hosted API); --discover adds every model it lists
  model add --gguf PATH [options]            add a local GGUF file, served in process by llama.cpp
      options: --id ID  --name NAME  --context TOKENS  --price-in USD  --price-out USD (per 1M tokens; default 0)
               --default (the model requests without a model get)`;

class ModelUsageError extends Error {}

function number(raw: string | undefined, flag: string, integer = false): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < 0 || (integer && (!Number.isInteger(n) || n === 0)))
    throw new ModelUsageError(`--${flag} must be a ${integer ? 'positive whole' : 'non-negative'} number, got "${raw}"`);
  return n;
}

/** Runs `model <verb> …`; prints what it did, the file it wrote on the last line. Bad usage exits 2 with this command's help. */
export async function modelCommand(verb: string | undefined, args: string[]): Promise<void> {
  try {
    await run(verb, args);
  } catch (e) {
    if (!(e instanceof ModelUsageError) && !(e as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) throw e;
    console.error(`lagoon: ${(e as Error).message}\nusage:\n${MODEL_USAGE}`);
    process.exit(2);
  }
}

async function run(verb: string | undefined, args: string[]): Promise<void> {
  if (verb !== 'add') throw new ModelUsageError(verb ? `unknown command: model ${verb}` : 'model needs a command: add');
  const { values } = parseArgs({
    args,
    options: {
      upstream: { type: 'string' },
      gguf: { type: 'string' },
      model: { type: 'string' },
      discover: { type: 'boolean' },
      'key-env': { type: 'string' },
      id: { type: 'string' },
      name: { type: 'string' },
      context: { type: 'string' },
      'price-in': { type: 'string' },
      'price-out': { type: 'string' },
      default: { type: 'boolean' },
    },
    strict: true,
  });
  if (!values.upstream === !values.gguf) throw new ModelUsageError('give either --upstream URL or --gguf PATH');
  const opts: EntryOptions = {
    id: values.id,
    name: values.name,
    contextLength: number(values.context, 'context', true),
    priceIn: number(values['price-in'], 'price-in'),
    priceOut: number(values['price-out'], 'price-out'),
    makeDefault: values.default === true,
  };
  const config = loadConfig();
  const file = config.modelsExtra.file;
  let entries;
  if (values.gguf) {
    const checked = await probeGguf(values.gguf, false);
    if (!checked.ok) throw new Error(`${values.gguf}: ${checked.reason}`);
    entries = [ggufEntry(values.gguf, opts)];
  } else {
    const upstream = values.upstream!;
    if (!/^https?:\/\//i.test(upstream)) throw new ModelUsageError(`--upstream must start with http:// or https://, got "${upstream}"`);
    const keyEnv = values['key-env'];
    const apiKey = keyEnv ? process.env[keyEnv] : undefined;
    if (keyEnv && !apiKey) throw new ModelUsageError(`--key-env ${keyEnv}: that environment variable is not set here (the server needs it too)`);
    if (values.discover) {
      if (values.model) throw new ModelUsageError('give --model or --discover, not both');
      const { models, skipped } = await discoverUpstream(upstream, apiKey);
      for (const s of skipped) console.error(`skipped ${s}`);
      if (models.length === 0) throw new Error('the upstream lists no model to add');
      if (models.length > 1 && (opts.id || opts.name))
        throw new ModelUsageError('--id and --name name one model: leave them out with --discover, or use --model');
      // With several, --default goes to the first text model listed.
      const firstText = models.findIndex((m) => !m.dimensions);
      entries = models.map((m, i) => upstreamEntry(upstream, m, keyEnv, { ...opts, makeDefault: opts.makeDefault && i === firstText }));
    } else {
      if (!values.model) throw new ModelUsageError("--upstream needs --model NAME (the upstream's served model name) or --discover");
      const entry = upstreamEntry(upstream, { served: values.model }, keyEnv, opts);
      // Added either way (the upstream may be down now); the server reports it offline until it answers.
      const checked = await probeEngine(entry.engine as EngineSpec, { vars: (n) => process.env[n], modelId: entry.id });
      if (!checked.ok) console.error(`warning: ${checked.reason}; the model is added, and shown offline until the upstream answers`);
      else if (checked.note) console.error(`note: ${checked.note}`);
      entries = [entry];
    }
  }
  const { added, replaced } = addToExtraFile(file, entries);
  for (const id of added) console.log(`added ${id}`);
  for (const id of replaced) console.log(`updated ${id}`);
  console.error('restart the server to serve them (it reads this file at start)');
  console.log(file);
}
