// Audio files attached to a chat message, read like documents: the declared type must match the bytes (the
// container sniffed from its first bytes), the size fits the attachment limit, and the file is transcribed once, when
// it is sent, by the code that writes down the API's input_audio for models that do not hear (the default asr model;
// at most CHAT_AUDIO_MAX_SECONDS, longer is a 400 before anything is stored). The transcript is kept with the
// attachment, so later turns, edits and regenerations put the same text in the prompt without transcribing again.
// As with input_audio, the transcription itself is not billed: its text is, as prompt tokens.
import { ApiError, isApiError } from '../../api/errors.ts';
import { parseDataUrl } from '../../files/data-url.ts';
import { CHAT_AUDIO_MAX_SECONDS } from '../../engines/audio/types.ts';
import { sniffMedia } from '../../engines/audio/sniff.ts';
import type { ChatDeps } from '../pipeline.ts';

export const AUDIO_TYPES = ['audio/wav', 'audio/mpeg', 'audio/mp4', 'audio/ogg', 'audio/webm', 'audio/flac'] as const;

export const MAX_AUDIO_SECONDS = CHAT_AUDIO_MAX_SECONDS;

/** Extensions per audio type (the picker's accept list, and the type of a file the browser could not name). */
export const AUDIO_EXTENSIONS: Record<string, string[]> = {
  'audio/wav': ['wav'],
  'audio/mpeg': ['mp3'],
  'audio/mp4': ['m4a'],
  'audio/ogg': ['ogg', 'oga', 'opus'],
  'audio/webm': ['webm'],
  'audio/flac': ['flac'],
};

/** Other names browsers and systems give the same types (a .webm recording is often typed as video). */
export const AUDIO_ALIASES: Record<string, string> = {
  'audio/x-wav': 'audio/wav',
  'audio/wave': 'audio/wav',
  'audio/vnd.wave': 'audio/wav',
  'audio/mp3': 'audio/mpeg',
  'audio/x-mp3': 'audio/mpeg',
  'audio/x-mpeg': 'audio/mpeg',
  'audio/x-m4a': 'audio/mp4',
  'audio/m4a': 'audio/mp4',
  'audio/aac-mp4': 'audio/mp4',
  'audio/opus': 'audio/ogg',
  'application/ogg': 'audio/ogg',
  'audio/x-flac': 'audio/flac',
  'video/webm': 'audio/webm',
};

/** The container each declared type must sniff as (lib/engines/audio/sniff.ts names). */
const CONTAINERS: Record<string, string> = {
  'audio/wav': 'WAV',
  'audio/mpeg': 'MP3',
  'audio/mp4': 'MP4/M4A',
  'audio/ogg': 'OGG',
  'audio/webm': 'WEBM',
  'audio/flac': 'FLAC',
};

/** Whether the bytes are the container the declared audio type names. */
export function audioMatches(type: string, data: Buffer): boolean {
  const kind = sniffMedia(data);
  return !!kind?.audio && kind.name === CONTAINERS[type];
}

/** Whether this server can transcribe attached audio (a transcription model is in the catalogue). */
export const canTranscribe = (deps: Pick<ChatDeps, 'catalogue' | 'transcribeAudio'>): boolean =>
  !!deps.transcribeAudio && deps.catalogue.models.some((m) => m.type === 'asr');

/** The transcript as the model reads it; the markers cannot be forged from inside the transcript. */
export function transcriptForPrompt(name: string, transcript: string): string {
  const body = transcript.replace(/\[(Audio transcript|End of audio transcript)/g, '($1').trim() || '(no speech was recognised in this audio)';
  return `[Audio transcript: ${name}]\n${body}\n[End of audio transcript: ${name}]`;
}

interface AudioUpload {
  name: string;
  type: string;
  kind: string;
  dataUrl: string;
  transcript?: string;
}

/**
 * Transcribes the audio among `attachments` (in place: each gets its `transcript`). A failure names the file and
 * its place in the upload: too long, unreadable, silent or too large are 4xx errors, and nothing has been stored yet.
 */
export async function transcribeAudioAttachments(
  deps: Pick<ChatDeps, 'transcribeAudio'>,
  attachments: AudioUpload[],
  ctx: { requestId: string; signal: AbortSignal },
  firstIndex = 0,
): Promise<void> {
  for (const [i, a] of attachments.entries()) {
    if (a.kind !== 'audio' || a.transcript !== undefined) continue;
    const param = `attachments.${i - firstIndex}`;
    if (!deps.transcribeAudio) throw new ApiError('UNSUPPORTED_FILE', `"${a.name}": this server cannot transcribe audio`, { param });
    try {
      const text = await deps.transcribeAudio(parseDataUrl(a.dataUrl).data, a.type.split('/')[1] ?? 'audio', ctx);
      if (text === undefined) throw new ApiError('UNSUPPORTED_FILE', `"${a.name}": this server cannot transcribe audio`, { param });
      a.transcript = text.trim();
    } catch (e) {
      if (!isApiError(e)) throw e;
      // The pipeline's words for input_audio, said about this file.
      const message = e.message.replace(/^An input_audio part/, 'The file').replace(/the most a chat message may carry/, 'the most an attachment may last');
      throw new ApiError(e.code, `"${a.name}": ${message}`, { ...e.extra, param }, e.headers);
    }
  }
}
