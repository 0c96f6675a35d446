// What container an upload is, from its first bytes (never its name or declared type). ffmpeg is then told which
// demuxer to use, so a file only ever reaches the one parser its kind needs, not whichever one ffmpeg would guess.

export interface MediaKind {
  /** What the public API calls it. */
  name: string;
  /** ffmpeg's demuxer for it. */
  demuxer: string;
  contentType: string;
  /** Whether it is one of the audio types /audio/transcriptions documents. */
  audio: boolean;
}

const KINDS = {
  wav: { name: 'WAV', demuxer: 'wav', contentType: 'audio/wav', audio: true },
  flac: { name: 'FLAC', demuxer: 'flac', contentType: 'audio/flac', audio: true },
  mp3: { name: 'MP3', demuxer: 'mp3', contentType: 'audio/mpeg', audio: true },
  aac: { name: 'AAC', demuxer: 'aac', contentType: 'audio/aac', audio: true },
  ogg: { name: 'OGG', demuxer: 'ogg', contentType: 'audio/ogg', audio: true },
  webm: { name: 'WEBM', demuxer: 'matroska', contentType: 'audio/webm', audio: true },
  mp4: { name: 'MP4/M4A', demuxer: 'mov', contentType: 'audio/mp4', audio: true },
  aiff: { name: 'AIFF', demuxer: 'aiff', contentType: 'audio/aiff', audio: true },
  avi: { name: 'AVI', demuxer: 'avi', contentType: 'video/x-msvideo', audio: false },
  mpegts: { name: 'MPEG-TS', demuxer: 'mpegts', contentType: 'video/mp2t', audio: false },
} satisfies Record<string, MediaKind>;

export const AUDIO_TYPES_TEXT = 'WAV, FLAC, MP3, AAC, OGG/OGA/Opus, WEBM, MP4/M4A (or AIFF)';

const ascii = (b: Buffer, from: number, to: number) => (b.length >= to ? b.toString('latin1', from, to) : '');

/** The container of `b`, or undefined when it is none of the kinds handled. */
export function sniffMedia(b: Buffer): MediaKind | undefined {
  if (ascii(b, 0, 4) === 'RIFF' && ascii(b, 8, 12) === 'WAVE') return KINDS.wav;
  if (ascii(b, 0, 4) === 'RIFF' && ascii(b, 8, 12) === 'AVI ') return KINDS.avi;
  if (ascii(b, 0, 4) === 'FORM' && (ascii(b, 8, 12) === 'AIFF' || ascii(b, 8, 12) === 'AIFC')) return KINDS.aiff;
  if (ascii(b, 0, 4) === 'fLaC') return KINDS.flac;
  if (ascii(b, 0, 4) === 'OggS') return KINDS.ogg;
  if (b.length >= 4 && b[0] === 0x1a && b[1] === 0x45 && b[2] === 0xdf && b[3] === 0xa3) return KINDS.webm;
  if (ascii(b, 4, 8) === 'ftyp') return KINDS.mp4;
  if (ascii(b, 0, 3) === 'ID3') return KINDS.mp3;
  if (b.length >= 2 && b[0] === 0xff) {
    if ((b[1] & 0xf6) === 0xf0) return KINDS.aac; // ADTS: sync, MPEG-4/2, layer 00
    if ((b[1] & 0xe0) === 0xe0 && ((b[1] >> 1) & 3) !== 0) return KINDS.mp3; // MPEG audio frame sync, a layer
  }
  if (b.length >= 377 && b[0] === 0x47 && b[188] === 0x47 && b[376] === 0x47) return KINDS.mpegts;
  return undefined;
}

/** Raw PCM as chat's `input_audio` formats name it: OpenAI's pcm16 is 24 kHz mono little-endian. */
export const RAW_PCM: Record<string, string[]> = {
  pcm16: ['-f', 's16le', '-ar', '24000', '-ac', '1'],
  pcm24: ['-f', 's24le', '-ar', '24000', '-ac', '1'],
};
