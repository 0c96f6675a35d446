// Request ids: a ms-time prefix (so usage rows keyed by them append to their index rather than land on random
// pages), a per-process counter, and a random per-process suffix that keeps instances apart. 24 hex characters.
// One generator for both APIs: an app request's usage row carries the same id as its answer's CF-RAY.
import { randomUUID } from 'node:crypto';

const PROCESS_SUFFIX = randomUUID().replaceAll('-', '').slice(0, 7);
let counter = 0;

export const newRequestId = (): string =>
  Date.now().toString(16).padStart(11, '0') + (counter = (counter + 1) & 0xffffff).toString(16).padStart(6, '0') + PROCESS_SUFFIX;
