'use client';
// Seconds left until a deadline, ticking once a second; 0 when there is none or it has passed (429 retry-after).
import { useEffect, useState } from 'react';

export function useCountdown(deadline: number | null): number {
  const left = () => (deadline ? Math.max(0, Math.ceil((deadline - Date.now()) / 1000)) : 0);
  const [seconds, setSeconds] = useState(left);
  // biome-ignore lint/correctness/useExhaustiveDependencies: left() depends on deadline only
  useEffect(() => {
    setSeconds(left());
    if (!deadline) return;
    const t = setInterval(() => {
      const s = left();
      setSeconds(s);
      if (s === 0) clearInterval(t);
    }, 1000);
    return () => clearInterval(t);
  }, [deadline]);
  return seconds;
}

/** "45 s", "2 min 5 s": short, readable wait times. */
export function formatWait(seconds: number): string {
  if (seconds < 60) return `${seconds} s`;
  const m = Math.floor(seconds / 60);
  const s = seconds % 60;
  return s ? `${m} min ${s} s` : `${m} min`;
}
