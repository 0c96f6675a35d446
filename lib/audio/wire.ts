// Read-aloud and dictation in the chat (lib/audio/app-routes.ts). The user's own account pays, through its
// server-held browser key, exactly as POST /api/v1/audio/speech and /audio/transcriptions bill a key: speech per
// 1,000 characters, transcription per started second.
//   GET  /api/app/audio/options                             → AudioOptions
//   POST /api/app/audio/speech  SpeechRequest               → audio/mpeg, streamed sentence by sentence (errors: JSON)
//   POST /api/app/audio/transcriptions  (body: the audio)   → DictationResult (Content-Type: the recording's audio/* type)

/** What the read-aloud button and the voice picker offer; null when this server cannot do it (with why). */
export interface SpeechOptions {
  model: string;
  modelName: string;
  voices: { id: string; label: string }[];
  defaultVoice: string;
  minSpeed: number;
  maxSpeed: number;
  /** The most characters one request may carry: longer text is read in pieces, one request each. */
  maxCharacters: number;
  per1kCharactersUsd: number | null;
}

export interface DictationOptions {
  model: string;
  maxBytes: number;
  maxSeconds: number;
  perSecondUsd: number | null;
}

export interface AudioOptions {
  speech: SpeechOptions | null;
  dictation: DictationOptions | null;
  /** Why speech or dictation is missing, in a sentence for the user (null when both are there). */
  unavailable: string | null;
}

export interface SpeechRequest {
  text: string;
  voice?: string;
  /** 0.25 to 4 (1 is normal). */
  speed?: number;
}

export interface DictationResult {
  text: string;
  /** The recording's length, as billed (a started second counts whole). */
  seconds: number;
  costUsd: number;
}
