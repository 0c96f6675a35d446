// The Redis connection that carries shared rate-limit state (REDIS_URL) across server instances.
//
// Failure policy: fail OPEN, per process. Every Redis-backed limiter has an in-memory insurance limiter with the
// same figures (see counters.ts), so while Redis is unreachable each instance enforces the limits on its own
// instead of refusing all traffic: an outage of the counter store must not take inference down, and the worst
// case is N instances each admitting the full limit for the outage's duration. To make that switch immediate
// rather than after a hung command, the client does not queue commands while disconnected and bounds each
// command's time.
import { Redis } from 'ioredis';
import { log } from '../log.ts';

export type { Redis };

export interface ConnectOptions {
  /** How long to wait for the first connection before starting anyway (in fail-open mode). */
  readyTimeoutMs?: number;
  /** Where outage warnings go; the server log by default. */
  warn?: (message: string) => void;
}

/** Connects and resolves once the client is ready, or after readyTimeoutMs with a warning (it keeps retrying). */
export async function connectRedis(url: string, opts: ConnectOptions = {}): Promise<Redis> {
  const warn = opts.warn ?? ((m: string) => log.warn(m));
  const client = new Redis(url, {
    // Fail fast into the insurance limiter instead of buffering admissions behind a dead connection.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 2_000,
    commandTimeout: 1_000,
    retryStrategy: (times) => Math.min(times * 200, 2_000),
  });

  // One warning per outage, not one per reconnect attempt.
  let down = false;
  client.on('error', (e: Error) => {
    if (down) return;
    down = true;
    warn(`rate limits: Redis unavailable (${e.message}); each instance limits on its own until it returns`);
  });
  client.on('ready', () => {
    if (!down) return;
    down = false;
    warn('rate limits: Redis reconnected; limits are shared again');
  });

  const timeoutMs = opts.readyTimeoutMs ?? 5_000;
  await new Promise<void>((resolve) => {
    if (client.status === 'ready') return resolve();
    const timer = setTimeout(() => {
      client.off('ready', onReady);
      if (!down) warn(`rate limits: Redis at ${redactUrl(url)} not ready after ${timeoutMs} ms; starting with per-instance limits`);
      down = true;
      resolve();
    }, timeoutMs);
    const onReady = () => {
      clearTimeout(timer);
      resolve();
    };
    client.once('ready', onReady);
  });
  return client;
}

/** Closes the connection: a clean QUIT when connected, otherwise drops the reconnect loop. */
export async function closeRedis(client: Redis): Promise<void> {
  if (client.status === 'ready') {
    try {
      await client.quit();
      return;
    } catch {
      // Fall through: the connection went away while quitting.
    }
  }
  client.disconnect();
}

/** The URL without its password, for logs. */
function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return 'REDIS_URL';
  }
}
