'use client';
// The read-aloud voice and speed, as a section of the chat settings dialog (a draft there until Save; kept for this
// user in this browser, voice-prefs.ts). The voices are the server's speech model's, in words; the price is stated.
import { useTranslations } from 'use-intl';
import { useId } from 'react';
import { useAudioOptions } from './audio-api.ts';
import type { VoicePrefs } from './voice-prefs.ts';

const SPEEDS_STEP = 0.25;

export function VoiceSettings({ value, onChange }: { value: VoicePrefs; onChange: (v: VoicePrefs) => void }) {
  const t = useTranslations('audio');
  const speech = useAudioOptions().data?.speech;
  const id = useId();
  if (!speech) return null;
  const voice = value.voice && speech.voices.some((v) => v.id === value.voice) ? value.voice : speech.defaultVoice;
  const speed = Math.min(speech.maxSpeed, Math.max(speech.minSpeed, value.speed));
  const field = 'block text-sm font-medium text-foreground';
  return (
    <fieldset data-testid="voice-settings" className="min-w-0 space-y-2">
      <legend className={field}>{t('legend')}</legend>
      <div className="flex items-center justify-between gap-2">
        <label htmlFor={`${id}-voice`} className="text-sm text-muted-foreground">
          {t('voice')}
        </label>
        <select
          id={`${id}-voice`}
          data-testid="voice-select"
          value={voice}
          onChange={(e) => onChange({ ...value, voice: e.target.value })}
          className="min-w-0 flex-1 rounded-lg border border-input bg-background px-2 py-1.5 text-sm"
        >
          {speech.voices.map((v) => (
            <option key={v.id} value={v.id}>
              {v.label}
            </option>
          ))}
        </select>
      </div>
      <div>
        <div className="flex items-center justify-between">
          <label htmlFor={`${id}-speed`} className="text-sm text-muted-foreground">
            {t('speed')}
          </label>
          <span className="text-sm tabular-nums text-muted-foreground">{speed === 1 ? t('normal') : t('times', { speed })}</span>
        </div>
        <input
          id={`${id}-speed`}
          data-testid="voice-speed"
          type="range"
          min={speech.minSpeed}
          max={speech.maxSpeed}
          step={SPEEDS_STEP}
          value={speed}
          onChange={(e) => onChange({ ...value, speed: Number(e.target.value) })}
          aria-valuetext={speed === 1 ? t('normalSpeed') : t('timesNormal', { speed })}
          className="mt-1 w-full accent-[var(--primary)]"
        />
      </div>
      {speech.per1kCharactersUsd !== null && (
        <p className="text-xs text-muted-foreground">{t('price', { model: speech.modelName, price: String(speech.per1kCharactersUsd) })}</p>
      )}
    </fieldset>
  );
}
