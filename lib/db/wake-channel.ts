// A nudge between the instances of one deployment: "there is work, look now". The store stays the truth (a woken
// instance still claims from it, and polling remains the safety net); this only cuts the wait for the next poll. Over
// Redis pub/sub where REDIS_URL is set, else PostgreSQL's LISTEN/NOTIFY; the embedded store has one instance and needs
// none. A lost nudge costs one poll interval, never work.
import pg from 'pg';
import type { Redis } from 'ioredis';
import type { Store } from './store.ts';
import { log } from '../log.ts';

export interface WakeChannel {
  /** Tells the other instances (not this one). */
  notify(): void;
  close(): Promise<void>;
}

export interface WakeOptions {
  /** A name for the channel, [a-z_]: one per kind of work. */
  name: string;
  /** This instance, so it ignores its own nudges. */
  self: string;
  onWake: () => void;
  redis?: Redis;
  redisPrefix?: string;
  databaseUrl?: string;
  store: Store;
}

const RECONNECT_MS = 2_000;

/** The deployment's channel for `name`, or undefined where there is only this instance. */
export async function openWakeChannel(o: WakeOptions): Promise<WakeChannel | undefined> {
  if (!/^[a-z_]{1,40}$/.test(o.name)) throw new Error(`bad wake channel name ${o.name}`);
  if (o.redis) return redisChannel(o, o.redis);
  if (o.databaseUrl && o.store.kind === 'postgres') return postgresChannel(o, o.databaseUrl);
  return undefined;
}

function redisChannel(o: WakeOptions, redis: Redis): WakeChannel {
  const channel = `${o.redisPrefix ?? 'lagoon'}:wake:${o.name}`;
  // A subscribed connection can do nothing else, so it is a second one; it queues its SUBSCRIBE until connected and
  // subscribes again after every reconnect (ioredis's autoResubscribe).
  const sub = redis.duplicate({ enableOfflineQueue: true, commandTimeout: undefined, maxRetriesPerRequest: null });
  sub.on('error', () => undefined); // the main connection already warns of an outage
  sub.on('message', (ch: string, from: string) => {
    if (ch === channel && from !== o.self) o.onWake();
  });
  sub.subscribe(channel).catch((e: Error) => log.warn(`wake ${o.name}: could not subscribe (${e.message}); polling only`));
  return {
    notify: () => void redis.publish(channel, o.self).catch(() => undefined),
    close: async () => {
      sub.disconnect();
    },
  };
}

function postgresChannel(o: WakeOptions, url: string): WakeChannel {
  const channel = `lagoon_wake_${o.name}`;
  let client: pg.Client | undefined;
  let closed = false;
  let retry: NodeJS.Timeout | undefined;
  const again = () => {
    clearTimeout(retry);
    if (!closed) retry = setTimeout(() => void listen(), RECONNECT_MS).unref();
  };
  // LISTEN holds a connection of its own, outside the pool; it is opened again after it drops.
  const listen = async () => {
    const c = new pg.Client({ connectionString: url });
    c.on('error', () => undefined);
    c.on('end', () => {
      if (client !== c) return;
      client = undefined;
      again();
    });
    c.on('notification', (n) => {
      if (n.channel === channel && n.payload !== o.self) o.onWake();
    });
    try {
      await c.connect();
      await c.query(`LISTEN ${channel}`);
      if (closed) await c.end();
      else client = c;
    } catch (e) {
      log.warn(`wake ${o.name}: LISTEN failed (${(e as Error).message}); polling until it works`);
      await c.end().catch(() => undefined);
      again();
    }
  };
  void listen();
  return {
    notify: () => void o.store.run('SELECT pg_notify($1, $2)', [channel, o.self]).catch(() => undefined),
    close: async () => {
      closed = true;
      clearTimeout(retry);
      await client?.end().catch(() => undefined);
    },
  };
}
