'use client';
// An audio file's length, read by the browser from its metadata before upload, so an attachment over the limit is
// refused at once (the server measures it again when the message is sent). Unknown (a recording without a duration
// in its header, a format the browser cannot play): undefined, and the server decides.

export function audioDuration(file: Blob, timeoutMs = 5000): Promise<number | undefined> {
  return new Promise((resolve) => {
    const audio = document.createElement('audio');
    const url = URL.createObjectURL(file);
    const done = (d: number | undefined) => {
      clearTimeout(timer);
      audio.removeAttribute('src');
      audio.load();
      URL.revokeObjectURL(url);
      resolve(d !== undefined && Number.isFinite(d) && d > 0 ? d : undefined);
    };
    const timer = setTimeout(() => done(undefined), timeoutMs);
    audio.preload = 'metadata';
    audio.onloadedmetadata = () => done(audio.duration);
    audio.onerror = () => done(undefined);
    audio.src = url;
  });
}

/** Why `file` is too long to attach, or null. */
/** Why `file` is too long (the catalogue's audioErrors.audioTooLong, worded by `say`), or null. */
export async function audioTooLong(
  file: Blob,
  name: string,
  maxSeconds: number,
  say: (values: { name: string; length: string; max: string }) => string,
): Promise<string | null> {
  const seconds = await audioDuration(file);
  if (seconds === undefined || seconds <= maxSeconds) return null;
  const m = (s: number) => (s >= 120 ? `${Math.round(s / 60)} min` : `${Math.round(s)} s`);
  return say({ name: `“${name}”`, length: m(seconds), max: m(maxSeconds) });
}
