// The demo model: a tiny llama-architecture GGUF built from code (no downloaded weights) that writes readable,
// roughly grammatical English. Its weights are constructed, not trained:
//   - every word is ONE SentencePiece token ("▁word"), grouped into word classes (determiner, noun, verb, ...);
//   - residual dimension 0 carries a constant, which lets output.weight act as a per-token logit bias: every
//     token that is not a word, punctuation or </s> (bytes, prefixes, control tokens) gets a bias of -50, so
//     sampling never picks it;
//   - the next dimensions hold the current token's class (one-hot); output.weight reads them as a class-bigram
//     grammar ("The quiet fox sees a golden lamp near the river.") with -20 on transitions the grammar forbids;
//   - the remaining dimensions hold random per-token features plus what the two random attention/FFN layers add,
//     which picks the word inside a class and makes the choice depend on the context.
// The layers write only into the random dimensions, so they never disturb the bias and the grammar.
import { mkdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { buildGguf, type GgufTensor, type GgufValue } from './gguf-writer.ts';

const SPACE = '\u2581'; // SentencePiece's word-boundary mark

// Word classes. Nouns and adjectives all start with a consonant so "a" reads right in front of them; subject
// nouns are beings and object nouns things or places, so the bigram grammar cannot say "the lamp sees a fox".
const CLASSES = {
  START_DET: ['The', 'A', 'This', 'That', 'Every', 'Some', 'My', 'Your', 'Our', 'Their'],
  START_PRON: ['She', 'He', 'It', 'Someone', 'Everyone', 'Nobody'],
  DET: ['the', 'a', 'this', 'that', 'every', 'some', 'my', 'your', 'our', 'their'],
  PRON: ['she', 'he', 'it', 'someone', 'everyone', 'nobody'],
  ADJ_S: [
    'quiet',
    'brave',
    'clever',
    'curious',
    'gentle',
    'happy',
    'lazy',
    'busy',
    'friendly',
    'patient',
    'careful',
    'young',
    'sleepy',
    'proud',
    'polite',
    'funny',
    'noisy',
    'little',
    'wise',
    'tired',
    'cheerful',
    'lonely',
    'hungry',
    'famous',
    'lucky',
  ],
  ADJ_O: [
    'big',
    'small',
    'bright',
    'dark',
    'calm',
    'warm',
    'cold',
    'green',
    'blue',
    'red',
    'golden',
    'silver',
    'soft',
    'strong',
    'wild',
    'new',
    'good',
    'simple',
    'strange',
    'distant',
    'hidden',
    'shiny',
    'sturdy',
    'tall',
    'fresh',
    'modern',
    'narrow',
    'wooden',
    'broken',
    'secret',
  ],
  NOUN_S: [
    'cat',
    'dog',
    'bird',
    'fox',
    'horse',
    'rabbit',
    'teacher',
    'farmer',
    'doctor',
    'child',
    'friend',
    'neighbor',
    'captain',
    'painter',
    'baker',
    'king',
    'queen',
    'robot',
    'sailor',
    'student',
    'poet',
    'wizard',
    'dragon',
    'musician',
    'gardener',
    'pilot',
    'traveler',
    'scientist',
    'mouse',
    'turtle',
  ],
  NOUN_O: [
    'tree',
    'river',
    'mountain',
    'city',
    'garden',
    'house',
    'window',
    'door',
    'book',
    'letter',
    'story',
    'song',
    'machine',
    'model',
    'server',
    'network',
    'cloud',
    'computer',
    'village',
    'forest',
    'road',
    'bridge',
    'boat',
    'train',
    'lamp',
    'table',
    'chair',
    'cup',
    'kettle',
    'bicycle',
    'planet',
    'star',
    'moon',
    'sun',
    'market',
    'library',
    'museum',
    'castle',
    'tower',
    'map',
    'key',
    'picture',
    'field',
    'lake',
    'harbor',
    'kitchen',
    'puzzle',
    'candle',
  ],
  VT: [
    'sees',
    'finds',
    'likes',
    'builds',
    'paints',
    'reads',
    'writes',
    'follows',
    'visits',
    'watches',
    'helps',
    'carries',
    'opens',
    'closes',
    'remembers',
    'discovers',
    'greets',
    'admires',
    'fixes',
    'draws',
    'cleans',
    'loves',
    'needs',
    'wants',
    'shares',
    'guards',
    'explores',
    'studies',
    'imagines',
    'describes',
  ],
  VI: ['sleeps', 'sings', 'waits', 'smiles', 'dances', 'travels', 'rests', 'listens', 'laughs', 'wanders', 'works', 'runs', 'walks', 'dreams', 'thinks'],
  ADV: [
    'slowly',
    'quickly',
    'quietly',
    'happily',
    'carefully',
    'often',
    'always',
    'sometimes',
    'today',
    'again',
    'together',
    'gently',
    'softly',
    'early',
    'later',
  ],
  PREP: ['in', 'on', 'near', 'with', 'under', 'over', 'behind', 'beside', 'across', 'through', 'into', 'around', 'inside', 'along', 'past', 'toward', 'beyond'],
  CONJ: ['and', 'but', 'so', 'while', 'because', 'although', 'then', 'yet'],
  COMMA: [','],
  END: ['.', '!', '?'],
} as const;

type WordClass = keyof typeof CLASSES;
/** START: the class of every non-word token (control tokens, bytes): what follows it is a sentence start. */
type InputClass = WordClass | 'START';

const INPUT_CLASSES: InputClass[] = ['START', ...(Object.keys(CLASSES) as WordClass[])];

// Log-probabilities (unnormalised) of "class A is followed by class B"; a missing pair is forbidden (-20). EOS may
// follow a sentence end.
const GRAMMAR: Record<InputClass, Partial<Record<WordClass | 'EOS', number>>> = {
  START: { START_DET: 0, START_PRON: -0.8 },
  START_DET: { ADJ_S: -0.6, NOUN_S: 0 },
  START_PRON: { VT: 0, VI: -0.4 },
  PRON: { VT: 0, VI: -0.4 },
  ADJ_S: { NOUN_S: 0 },
  NOUN_S: { VT: 0, VI: -0.4 },
  VT: { DET: 0 },
  DET: { ADJ_O: -0.6, NOUN_O: 0 },
  ADJ_O: { NOUN_O: 0 },
  NOUN_O: { END: 0, PREP: -0.7, COMMA: -1.6 },
  VI: { ADV: -0.2, PREP: -0.3, END: -0.8, COMMA: -1.8 },
  ADV: { END: 0, PREP: -1.0, COMMA: -1.5 },
  PREP: { DET: 0 },
  COMMA: { CONJ: 0 },
  CONJ: { PRON: 0 },
  END: { START_DET: 0, START_PRON: -0.8, EOS: -0.6 },
};
const FORBIDDEN = -20;
const NOT_GENERATED = -50;
// Within a class some tokens are preferred: mostly full stops, and plain determiners over the rarer ones.
const TOKEN_BIAS: Record<string, number> = {
  '!': -1.5,
  '?': -2.5,
  the: 1.2,
  a: 0.8,
  The: 1.0,
  A: 0.5,
  every: -1.2,
  Every: -0.8,
  paints: -0.8,
  nobody: -0.5,
};

/** Words the demo model can generate (each is one "▁word" token). */
export const DEMO_WORDS: readonly string[] = Object.entries(CLASSES)
  .filter(([cls]) => cls !== 'COMMA' && cls !== 'END')
  .flatMap(([, words]) => words);
/** Punctuation the demo model can generate (each is one token, attached to the previous word). */
export const DEMO_PUNCTUATION: readonly string[] = [...CLASSES.COMMA, ...CLASSES.END];

const ROLE_TOKENS = ['<|system|>', '<|user|>', '<|assistant|>'];
// Each message is <|role|>content</s>; the model's turn starts after <|assistant|>. No newlines: text right after
// a control token gets SentencePiece's space prefix, so the first word of a message is still a "▁word" token.
const CHAT_TEMPLATE =
  "{% for message in messages %}{{ '<|' + message['role'] + '|>' + message['content'] + '</s>' }}{% endfor %}" +
  "{% if add_generation_prompt %}{{ '<|assistant|>' }}{% endif %}";

// Token types of tokenizer.ggml.token_type.
const NORMAL = 1;
const UNKNOWN = 2;
const CONTROL = 3;
const BYTE = 6;

interface VocabEntry {
  piece: string;
  score: number;
  type: number;
  /** The class this token feeds forward when it is the current token. */
  input: InputClass;
  /** The class this token belongs to when it is predicted; null: never generated. */
  output: WordClass | 'EOS' | null;
  bias: number;
}

interface DemoVocabulary {
  entries: VocabEntry[];
  eos: number;
}

function buildVocabulary(): DemoVocabulary {
  const entries: VocabEntry[] = [];
  const index = new Map<string, number>();
  const add = (piece: string, score: number, type: number, input: InputClass, output: VocabEntry['output'], bias = 0) => {
    const existing = index.get(piece);
    if (existing !== undefined) {
      // A word whose piece was first added as another word's prefix becomes a word itself.
      if (output !== null) Object.assign(entries[existing], { input, output, bias, score });
      return;
    }
    index.set(piece, entries.length);
    entries.push({ piece, score, type, input, output, bias });
  };
  add('<unk>', 0, UNKNOWN, 'START', null);
  add('<s>', 0, CONTROL, 'START', null);
  add('</s>', 0, CONTROL, 'START', 'EOS');
  for (const role of ROLE_TOKENS) add(role, 0, CONTROL, 'START', null);
  // Byte fallback: the SentencePiece tokenizer needs <0x00>..<0xFF> for any character not in the vocabulary.
  for (let b = 0; b < 256; b++) add(`<0x${b.toString(16).toUpperCase().padStart(2, '0')}>`, 0, BYTE, 'START', null);
  add(SPACE, -1, NORMAL, 'START', null);
  // Single characters keep tokenized prompts shorter than bytes would.
  const chars = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789:;-\'"()';
  for (const c of chars) add(c, -2, NORMAL, 'START', null);
  for (const [cls, words] of Object.entries(CLASSES) as [WordClass, readonly string[]][]) {
    for (const word of words) {
      if (cls === 'COMMA' || cls === 'END') {
        add(word, -1, NORMAL, cls, cls, TOKEN_BIAS[word] ?? 0);
        continue;
      }
      // SentencePiece only merges two pieces when their concatenation is a token, so every prefix of "▁word" must
      // exist for the whole word to become one token. The prefixes are never generated.
      const full = SPACE + word;
      for (let len = 2; len < full.length; len++) add(full.slice(0, len), -3 - (full.length - len) * 0.01, NORMAL, 'START', null);
      add(full, -3, NORMAL, cls, cls, TOKEN_BIAS[word] ?? 0);
    }
  }
  return { entries, eos: index.get('</s>')! };
}

// Deterministic Gaussian noise: mulberry32 + Box-Muller.
function gaussian(seed: number): () => number {
  let a = seed >>> 0;
  const uniform = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return () => Math.sqrt(-2 * Math.log(uniform() + 1e-12)) * Math.cos(2 * Math.PI * uniform());
}

const N_EMBD = 64;
const N_LAYER = 2;
const N_HEAD = 4;
const N_FF = 128;

export interface DemoModelOptions {
  seed?: number;
  /** Feed-forward width (default 128, a ~2 MB file). */
  ffnLength?: number;
}
const CONTEXT_LENGTH = 4096;
const BIAS_DIM = 0;
const CLASS_DIM0 = 1; // class one-hot dims: CLASS_DIM0 .. CLASS_DIM0 + INPUT_CLASSES.length - 1
const FREE_DIM0 = CLASS_DIM0 + INPUT_CLASSES.length; // random features; the only dims the layers write to
// Residual magnitudes of the embedding parts; the RMS norm before output.weight divides by the overall RMS,
// which stays close to NORM_RMS because the layers add little compared with these.
const BIAS_VALUE = 3;
const CLASS_VALUE = 3;
const FEATURE_NORM = 2;
const NORM_RMS = Math.sqrt((BIAS_VALUE ** 2 + CLASS_VALUE ** 2 + FEATURE_NORM ** 2) / N_EMBD);
/** Spread of the within-class word preferences, in logits. */
const WORD_NOISE = 0.7;

function buildTensors(vocab: DemoVocabulary, seed: number, nFf: number): GgufTensor[] {
  const rand = gaussian(seed);
  const nVocab = vocab.entries.length;
  const nFree = N_EMBD - FREE_DIM0;
  const classIndex = new Map(INPUT_CLASSES.map((c, i) => [c, i]));

  const embd = new Float32Array(N_EMBD * nVocab);
  const output = new Float32Array(N_EMBD * nVocab);
  const hBias = BIAS_VALUE / NORM_RMS; // what the normalised bias dim reads at the output
  const hClass = CLASS_VALUE / NORM_RMS;
  const hFree = FEATURE_NORM / NORM_RMS;
  vocab.entries.forEach((e, t) => {
    const row = t * N_EMBD;
    embd[row + BIAS_DIM] = BIAS_VALUE;
    embd[row + CLASS_DIM0 + classIndex.get(e.input)!] = CLASS_VALUE;
    const feature = Array.from({ length: nFree }, rand);
    const norm = Math.hypot(...feature);
    for (let i = 0; i < nFree; i++) embd[row + FREE_DIM0 + i] = (feature[i] / norm) * FEATURE_NORM;

    if (e.output === null) {
      output[row + BIAS_DIM] = NOT_GENERATED / hBias;
      return;
    }
    output[row + BIAS_DIM] = e.bias / hBias;
    // Spread each class's weight over its words, so a class's total probability does not grow with its size.
    const classSize = e.output === 'EOS' ? 1 : CLASSES[e.output].length;
    for (const prev of INPUT_CLASSES) {
      const weight = (GRAMMAR[prev][e.output] ?? FORBIDDEN) - Math.log(classSize);
      output[row + CLASS_DIM0 + classIndex.get(prev)!] = weight / hClass;
    }
    // Random features: the free dims have norm ~hFree, so this gives logit noise with std ~WORD_NOISE.
    if (e.output !== 'EOS') {
      for (let i = 0; i < nFree; i++) output[row + FREE_DIM0 + i] = (rand() * WORD_NOISE) / hFree;
    }
  });

  const ones = (n: number) => new Float32Array(n).fill(1);
  // A weight matrix [nIn, nOut] with N(0, std²) entries; rows (output dims) below `protectBelow` stay zero so the
  // layer cannot write into the bias and class dims.
  const matrix = (nIn: number, nOut: number, std: number, protectBelow = 0) => {
    const m = new Float32Array(nIn * nOut);
    for (let r = protectBelow; r < nOut; r++) for (let c = 0; c < nIn; c++) m[r * nIn + c] = rand() * std;
    return m;
  };
  const tensors: GgufTensor[] = [
    { name: 'token_embd.weight', dims: [N_EMBD, nVocab], data: embd },
    { name: 'output_norm.weight', dims: [N_EMBD], data: ones(N_EMBD) },
    { name: 'output.weight', dims: [N_EMBD, nVocab], data: output },
  ];
  for (let l = 0; l < N_LAYER; l++) {
    tensors.push(
      { name: `blk.${l}.attn_norm.weight`, dims: [N_EMBD], data: ones(N_EMBD) },
      { name: `blk.${l}.attn_q.weight`, dims: [N_EMBD, N_EMBD], data: matrix(N_EMBD, N_EMBD, 1 / Math.sqrt(N_EMBD)) },
      { name: `blk.${l}.attn_k.weight`, dims: [N_EMBD, N_EMBD], data: matrix(N_EMBD, N_EMBD, 1 / Math.sqrt(N_EMBD)) },
      { name: `blk.${l}.attn_v.weight`, dims: [N_EMBD, N_EMBD], data: matrix(N_EMBD, N_EMBD, 1 / Math.sqrt(N_EMBD)) },
      { name: `blk.${l}.attn_output.weight`, dims: [N_EMBD, N_EMBD], data: matrix(N_EMBD, N_EMBD, 0.3 / Math.sqrt(N_EMBD), FREE_DIM0) },
      { name: `blk.${l}.ffn_norm.weight`, dims: [N_EMBD], data: ones(N_EMBD) },
      { name: `blk.${l}.ffn_gate.weight`, dims: [N_EMBD, nFf], data: matrix(N_EMBD, nFf, 1 / Math.sqrt(N_EMBD)) },
      { name: `blk.${l}.ffn_up.weight`, dims: [N_EMBD, nFf], data: matrix(N_EMBD, nFf, 1 / Math.sqrt(N_EMBD)) },
      { name: `blk.${l}.ffn_down.weight`, dims: [nFf, N_EMBD], data: matrix(nFf, N_EMBD, 0.3 / Math.sqrt(nFf), FREE_DIM0) },
    );
  }
  return tensors;
}

/**
 * The demo model's GGUF bytes (deterministic for a seed). `ffnLength` widens the feed-forward layers: the file grows
 * by 1,536 bytes per unit (the benchmarks' mid-size model), while ffn_down's 1/sqrt(width) scale keeps what the
 * layers add, and so the grammar, the same.
 */
export function buildDemoGguf(opts: DemoModelOptions = {}): Buffer {
  const nFf = opts.ffnLength ?? N_FF;
  const vocab = buildVocabulary();
  const metadata: Record<string, GgufValue> = {
    'general.architecture': { type: 'string', value: 'llama' },
    'general.name': { type: 'string', value: 'lagoon-demo' },
    'general.alignment': { type: 'u32', value: 32 },
    'general.file_type': { type: 'u32', value: 0 }, // all F32
    'llama.context_length': { type: 'u32', value: CONTEXT_LENGTH },
    'llama.embedding_length': { type: 'u32', value: N_EMBD },
    'llama.block_count': { type: 'u32', value: N_LAYER },
    'llama.feed_forward_length': { type: 'u32', value: nFf },
    'llama.attention.head_count': { type: 'u32', value: N_HEAD },
    'llama.attention.head_count_kv': { type: 'u32', value: N_HEAD },
    'llama.rope.dimension_count': { type: 'u32', value: N_EMBD / N_HEAD },
    'llama.rope.freq_base': { type: 'f32', value: 10000 },
    'llama.attention.layer_norm_rms_epsilon': { type: 'f32', value: 1e-5 },
    'llama.vocab_size': { type: 'u32', value: vocab.entries.length },
    'tokenizer.ggml.model': { type: 'string', value: 'llama' },
    'tokenizer.ggml.tokens': { type: 'string[]', value: vocab.entries.map((e) => e.piece) },
    'tokenizer.ggml.scores': { type: 'f32[]', value: vocab.entries.map((e) => e.score) },
    'tokenizer.ggml.token_type': { type: 'i32[]', value: vocab.entries.map((e) => e.type) },
    'tokenizer.ggml.unknown_token_id': { type: 'u32', value: 0 },
    'tokenizer.ggml.bos_token_id': { type: 'u32', value: 1 },
    'tokenizer.ggml.eos_token_id': { type: 'u32', value: vocab.eos },
    'tokenizer.ggml.add_bos_token': { type: 'bool', value: true },
    'tokenizer.ggml.add_eos_token': { type: 'bool', value: false },
    'tokenizer.chat_template': { type: 'string', value: CHAT_TEMPLATE },
  };
  return buildGguf(metadata, buildTensors(vocab, opts.seed ?? 1, nFf));
}

async function writeAtomically(file: string, bytes: Buffer): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  // A unique temp name in the same directory, so the rename is atomic and concurrent writers never collide.
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    await writeFile(tmp, bytes);
    await rename(tmp, file);
  } catch (err) {
    await rm(tmp, { force: true });
    throw err;
  }
}

/** Writes the demo model to `file` (replacing it atomically). */
export async function writeDemoGguf(file: string, opts: DemoModelOptions = {}): Promise<void> {
  await writeAtomically(file, buildDemoGguf(opts));
}

/** Writes the demo model only when `file` does not exist; returns whether it wrote. */
export async function ensureDemoGguf(file: string): Promise<boolean> {
  try {
    await stat(file);
    return false;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  await writeDemoGguf(file);
  return true;
}
