// Alerts for account owners (low balance, a key's budget at 50/80/100 %), sent by email and by signed webhook.
//  - Evaluation never runs on the billed request's path: a settlement only names its account (`nudge`, a Set add),
//    and the account is evaluated a moment later off that path; a sweep every `sweepMs` evaluates every account with
//    alerts too (settlements on other instances, a new day's DIEM, a budget period that reset, a job's bill).
//  - A crossing fires once (store.ts#apply: decided under the state row's lock, its deliveries written in the same
//    transaction) and re-arms when the level falls or the period resets (rules.ts).
//  - Deliveries are rows: any instance's worker claims a due one under a lease, sends it (webhooks through the safe
//    fetcher, so a URL cannot reach the host's network; mail through the operator's SMTP server), and on a non-2xx
//    answer, a timeout or a network error retries after an exponential backoff with jitter, up to `maxAttempts`.
//    A restart loses nothing: what was due is still due, and a lease that died with its instance expires.
import { randomBytes } from 'node:crypto';
import { AccountNudge } from '../billing/account-nudge.ts';
import type { AlertsConfig } from '../config.ts';
import type { SecretBox } from '../db/secret-box.ts';
import type { Store } from '../db/store.ts';
import { log } from '../log.ts';
import { type ResolvedAddress, safeFetch } from '../net/safe-fetch.ts';
import { type AlertEvent, step, summary } from './rules.ts';
import { webhookHeaders } from './signature.ts';
import { type AlertSettings, AlertStore, type Channel, type DeliveryRow, type EventBody } from './store.ts';

/** The operator's mail transport (lib/account/mailer.ts's, handed in by the house). */
export interface AlertMailer {
  send(mail: { to: string; subject: string; text: string }): Promise<void>;
}

export interface AlertServiceOptions {
  store: Store;
  config: AlertsConfig;
  /** Undefined: this server sends no mail, so alerts go by webhook only. */
  mailer: AlertMailer | undefined;
  secrets: SecretBox | undefined;
  /** Hosts the webhook may reach though they resolve to private addresses (LAGOON_FETCH_ALLOW_HOSTS). */
  fetchAllowHosts: string[];
  /** Resolver instead of the system one (tests). */
  lookup?: (hostname: string) => Promise<ResolvedAddress[]>;
  random?: () => number;
}

/** The wait before attempt `attempt + 1` after `attempt` failed: doubling from `baseMs`, at most 6 h, jittered 50–100 %. */
export function backoffMs(attempt: number, baseMs: number, random: () => number = Math.random): number {
  const full = Math.min(baseMs * 2 ** Math.max(0, attempt - 1), 6 * 3600_000);
  return Math.round(full * (0.5 + random() / 2));
}

/** How many deliveries one instance sends at once. */
const CONCURRENCY = 4;
/** How long the nudged accounts wait to be evaluated together. */
const NUDGE_DELAY_MS = 200;

export class AlertService {
  readonly alerts: AlertStore;
  private readonly opts: AlertServiceOptions;
  private readonly owner = `alerts-${randomBytes(6).toString('hex')}`;
  /** Settled accounts, evaluated together a moment later. */
  private readonly nudges = new AccountNudge(NUDGE_DELAY_MS, (ids) => this.track(Promise.all(ids.map((id) => this.evaluate(id)))));
  private pollTimer: NodeJS.Timeout | undefined;
  private sweepTimer: NodeJS.Timeout | undefined;
  private running = new Set<Promise<unknown>>();
  private delivering: Promise<void> | undefined;
  private again = false;
  private stopped = false;
  /** Attempts this instance has made (for tests and logs). */
  attempts = 0;

  constructor(opts: AlertServiceOptions) {
    this.opts = opts;
    this.alerts = new AlertStore(opts.store, opts.secrets);
  }

  get mail(): boolean {
    return this.opts.mailer !== undefined;
  }

  private get leaseMs(): number {
    return Math.max(60_000, this.opts.config.timeoutMs * 3);
  }

  start(): void {
    this.stopped = false;
    this.nudges.resume();
    this.pollTimer = setInterval(() => this.kick(), this.opts.config.pollMs);
    this.pollTimer.unref();
    this.sweepTimer = setInterval(() => this.track(this.sweep()), this.opts.config.sweepMs);
    this.sweepTimer.unref();
    this.track(this.sweep());
  }

  /** Stops the timers and waits for what is under way (a delivery cut off here is sent again after its lease). */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const t of [this.pollTimer, this.sweepTimer]) if (t) clearTimeout(t);
    this.nudges.stop();
    while (this.running.size) await Promise.allSettled([...this.running]);
  }

  /** A settlement touched the account: evaluate it soon, off the request's path. Cheap: one Set add. */
  nudge(accountId: string): void {
    this.nudges.nudge(accountId);
  }

  /** Evaluates one account's alerts; returns the events that fired. */
  async evaluate(accountId: string, now = Date.now()): Promise<EventBody[]> {
    const settings = await this.alerts.settings(accountId);
    if (!settings) return [];
    const fired: EventBody[] = [];
    const [readings, states] = await Promise.all([this.alerts.readings(accountId, settings, now), this.alerts.states(accountId)]);
    for (const reading of readings) {
      // Nothing changed since the last look: no transaction (the common case, after most settlements).
      if (!step(states.get(reading.subject), reading).next) continue;
      const e = await this.alerts.apply(accountId, reading, (s) => this.targets(s));
      if (e) fired.push(e);
    }
    if (fired.length) this.kick();
    return fired;
  }

  /** Every account with alerts, a page at a time. */
  async sweep(now = Date.now()): Promise<void> {
    let after = '';
    for (;;) {
      const ids = await this.alerts.accounts(after, 200);
      for (const id of ids) {
        if (this.stopped) return;
        await this.evaluate(id, now).catch((e) => log.error({ err: e, accountId: id }, 'alerts: evaluating an account failed'));
      }
      if (ids.length < 200) return;
      after = ids[ids.length - 1];
    }
  }

  /** A test event on the account's channels; returns it, or undefined when no channel is set. */
  async sendTest(accountId: string): Promise<EventBody | undefined> {
    const settings = await this.alerts.settings(accountId);
    const targets = settings ? this.targets(settings) : [];
    if (!targets.length) return undefined;
    const event: AlertEvent = { type: 'alert.test', data: { message: 'A test alert from Lagoon: this channel works.' } };
    const body = await this.alerts.enqueue(accountId, event, targets);
    this.kick();
    return body;
  }

  private targets(s: AlertSettings): { channel: Channel; target: string }[] {
    const out: { channel: Channel; target: string }[] = [];
    if (s.email && this.opts.mailer) out.push({ channel: 'email', target: s.email });
    if (s.webhookUrl) out.push({ channel: 'webhook', target: s.webhookUrl });
    return out;
  }

  /** Sends what is due now (a pass already running goes round once more). */
  kick(): void {
    if (this.stopped) return;
    if (this.delivering) {
      this.again = true;
      return;
    }
    this.delivering = this.track(
      this.deliverDue()
        .then(() => undefined)
        .catch((e) => log.error({ err: e }, 'alerts: the delivery pass failed'))
        .finally(() => {
          this.delivering = undefined;
          if (this.again) {
            this.again = false;
            this.kick();
          }
        }),
    );
  }

  /** Claims and sends due deliveries, CONCURRENCY at a time, until none is due; returns how many were attempted. */
  async deliverDue(): Promise<number> {
    let count = 0;
    const worker = async () => {
      while (!this.stopped) {
        const row = await this.alerts.claim(this.owner, this.leaseMs);
        if (!row) return;
        count++;
        this.attempts++;
        await this.attempt(row);
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    return count;
  }

  private async attempt(row: DeliveryRow): Promise<void> {
    const result = await this.send(row).catch((e: unknown) => ({ ok: false, code: null, error: (e as Error).message ?? String(e) }));
    const { maxAttempts, retryBaseMs } = this.opts.config;
    const outcome = result.ok
      ? { status: 'delivered' as const, responseCode: result.code, error: null }
      : row.attempts >= maxAttempts
        ? { status: 'failed' as const, responseCode: result.code, error: result.error }
        : { status: 'pending' as const, responseCode: result.code, error: result.error, retryInMs: backoffMs(row.attempts, retryBaseMs, this.opts.random) };
    const mine = await this.alerts.finish(row.id, this.owner, outcome);
    if (!mine) log.warn({ delivery: row.id }, 'alerts: a delivery outlived its lease; another worker owns it now');
    else if (!result.ok)
      log.warn({ delivery: row.id, attempt: row.attempts, status: outcome.status, error: result.error }, 'alerts: a delivery attempt failed');
  }

  private async send(row: DeliveryRow): Promise<{ ok: boolean; code: number | null; error: string | null }> {
    const body = JSON.parse(row.payload) as EventBody;
    if (row.channel === 'email') {
      if (!this.opts.mailer) return { ok: false, code: null, error: 'this server sends no mail (LAGOON_SMTP_URL is not set)' };
      await this.opts.mailer.send({ to: row.target, subject: `Lagoon alert: ${summary(body)}`, text: mailText(body) });
      return { ok: true, code: null, error: null };
    }
    const settings = await this.alerts.settings(row.account_id);
    if (!settings) return { ok: false, code: null, error: 'the alert settings were removed' };
    const text = JSON.stringify(body);
    const res = await safeFetch(row.target, {
      method: 'POST',
      body: text,
      headers: webhookHeaders(settings.webhookSecret, body.id, text),
      timeoutMs: this.opts.config.timeoutMs,
      maxBytes: 64 * 1024,
      allowHosts: this.opts.fetchAllowHosts,
      lookup: this.opts.lookup,
    });
    const ok = res.status >= 200 && res.status < 300;
    return { ok, code: res.status, error: ok ? null : `the endpoint answered ${res.status}` };
  }

  private track<T>(p: Promise<T>): Promise<T> {
    this.running.add(p);
    const done = () => this.running.delete(p);
    p.then(done, (e) => {
      done();
      log.error({ err: e }, 'alerts: background work failed');
    });
    return p;
  }
}

function mailText(e: EventBody): string {
  const lines = [summary(e), '', `Event: ${e.type} (${e.id})`, `Time: ${e.created_at}`];
  if (e.type === 'balance.low') lines.push('', 'Add credit from your account page to keep your keys working.');
  if (e.type === 'budget.crossed')
    lines.push('', `Period: ${e.data.limitPeriod} (${e.data.period}); spent ${e.data.spent} of ${e.data.limit} ${e.data.currency}.`);
  lines.push('', 'You get this mail because you set up alerts in Lagoon (Account → Alerts).');
  return lines.join('\n');
}
