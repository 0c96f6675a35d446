'use client';
// The user's read-aloud voice and speed, kept in this browser (localStorage) and shared live by every component that
// reads them (the settings dialog writes, each read-aloud button reads); another tab's change arrives by the storage event.
import { useSyncExternalStore } from 'react';

export interface VoicePrefs {
  /** A voice id of the speech model; undefined: the model's default voice. */
  voice?: string;
  /** 1 is normal speed. */
  speed: number;
}

const KEY = 'lagoon.readAloud';
const CHANGED = 'lagoon:voice-prefs';
const DEFAULT: VoicePrefs = { speed: 1 };

let cachedRaw: string | null | undefined;
let cached: VoicePrefs = DEFAULT;

function parse(raw: string | null): VoicePrefs {
  try {
    const v = raw ? (JSON.parse(raw) as Record<string, unknown>) : {};
    const speed = typeof v.speed === 'number' && v.speed >= 0.25 && v.speed <= 4 ? v.speed : 1;
    return typeof v.voice === 'string' && v.voice ? { voice: v.voice, speed } : { speed };
  } catch {
    return DEFAULT;
  }
}

export function loadVoicePrefs(): VoicePrefs {
  let raw: string | null = null;
  try {
    raw = window.localStorage.getItem(KEY);
  } catch {
    // Storage blocked (private mode, policy): the defaults.
  }
  if (raw !== cachedRaw) {
    cachedRaw = raw;
    cached = parse(raw);
  }
  return cached;
}

export function saveVoicePrefs(prefs: VoicePrefs): void {
  const raw = JSON.stringify(prefs);
  try {
    window.localStorage.setItem(KEY, raw);
    cachedRaw = raw;
  } catch {
    // Not persisted (storage blocked reads back nothing): this page keeps the values until it is left.
    cachedRaw = null;
  }
  cached = parse(raw);
  window.dispatchEvent(new Event(CHANGED));
}

function subscribe(onChange: () => void): () => void {
  const onStorage = (e: StorageEvent) => e.key === KEY && onChange();
  window.addEventListener(CHANGED, onChange);
  window.addEventListener('storage', onStorage);
  return () => {
    window.removeEventListener(CHANGED, onChange);
    window.removeEventListener('storage', onStorage);
  };
}

export function useVoicePrefs(): VoicePrefs {
  return useSyncExternalStore(subscribe, loadVoicePrefs, () => DEFAULT);
}
