// Catalogue entries of the local audio engines for the API tests (the default catalogue's, with prices that make
// every charge visible): flite speech at 1 USD per 1,000 characters, pocketsphinx at 0.01 USD a second.

export const fliteModel = (over: Record<string, unknown> = {}) => ({
  id: 'tts-flite',
  name: 'Flite',
  type: 'tts',
  tier: 'XS',
  pricing: { input_usd: 0, output_usd: 0, input_diem: 0, output_diem: 0, per_1k_characters_usd: 1 },
  context_length: 4096,
  traits: ['default'],
  audio: {
    voices: ['slt', 'rms', 'awb', 'kal16', 'kal', 'awb_time'],
    default_voice: 'slt',
    voice_aliases: { alloy: 'slt', onyx: 'rms' },
    supported_formats: ['mp3', 'opus', 'aac', 'flac', 'wav', 'pcm'],
    default_format: 'mp3',
    languages: ['en'],
  },
  engine: { kind: 'flite', workers: 1 },
  ...over,
});

export const sphinxModel = (over: Record<string, unknown> = {}) => ({
  id: 'asr-pocketsphinx',
  name: 'PocketSphinx',
  type: 'asr',
  tier: 'XS',
  pricing: { input_usd: 0, output_usd: 0, input_diem: 0, output_diem: 0, per_second_usd: 0.01 },
  context_length: 1800,
  traits: ['default'],
  audio: { languages: ['en'], timestamps: ['word', 'segment'] },
  engine: { kind: 'pocketsphinx' },
  ...over,
});
