// A real SMTP server on loopback (the `smtp-server` package) that requires the credentials a test names and keeps
// every message it accepts, parsed with mailparser, so recovery tests read the very mail the app sent.
import type { AddressInfo } from 'node:net';
import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  from: string;
  to: string[];
  subject: string;
  text: string;
}

export interface TestSmtp {
  /** smtp://user:pass@127.0.0.1:PORT, for LAGOON_SMTP_URL. */
  url: string;
  mails: ReceivedMail[];
  /** The next mail to `to` not yet taken (waits up to `timeoutMs`). */
  next(to: string, timeoutMs?: number): Promise<ReceivedMail>;
  close(): Promise<void>;
}

export async function startSmtp(user = 'lagoon', pass = 'mail-secret'): Promise<TestSmtp> {
  const mails: ReceivedMail[] = [];
  const taken = new Set<ReceivedMail>();
  const server = new SMTPServer({
    // Plain SMTP on loopback: no STARTTLS offered, so AUTH over the clear connection is allowed for the test.
    disabledCommands: ['STARTTLS'],
    allowInsecureAuth: true,
    logger: false,
    onAuth(auth, _session, cb) {
      if (auth.username === user && auth.password === pass) cb(null, { user });
      else cb(new Error('Invalid username or password'));
    },
    onData(stream, session, cb) {
      simpleParser(stream)
        .then((m) => {
          mails.push({
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            to: session.envelope.rcptTo.map((r) => r.address),
            subject: m.subject ?? '',
            text: m.text ?? '',
          });
          cb();
        })
        .catch((e) => cb(e));
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  return {
    url: `smtp://${user}:${pass}@127.0.0.1:${port}`,
    mails,
    async next(to, timeoutMs = 10_000) {
      const end = Date.now() + timeoutMs;
      for (;;) {
        const m = mails.find((x) => !taken.has(x) && x.to.includes(to));
        if (m) {
          taken.add(m);
          return m;
        }
        if (Date.now() > end) throw new Error(`no mail to ${to} within ${timeoutMs} ms (got ${mails.length} in all)`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The reset link in a mail's text. */
export function resetLinkIn(text: string): string {
  const m = /https?:\/\/\S+\/reset-password#token=[A-Za-z0-9_-]{43}/.exec(text);
  if (!m) throw new Error(`no reset link in: ${text}`);
  return m[0];
}
