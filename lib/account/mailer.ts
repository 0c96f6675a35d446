// Account mail through the operator's SMTP server (LAGOON_SMTP_URL), sent with nodemailer: one pooled transport per
// configuration. Only the app's recovery routes send mail; without the setting they say recovery by mail is off.
import nodemailer, { type Transporter } from 'nodemailer';
import type { MailConfig } from '../config.ts';

export interface Mail {
  to: string;
  subject: string;
  text: string;
}

export interface Mailer {
  send(mail: Mail): Promise<void>;
  close(): void;
}

export function smtpMailer(config: MailConfig): Mailer {
  // Bounded waits: a stuck mail server must not pile up sends.
  const transport: Transporter = nodemailer.createTransport({
    url: config.smtpUrl,
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 20_000,
  } as Parameters<typeof nodemailer.createTransport>[0]);
  return {
    async send(mail) {
      await transport.sendMail({ from: config.from, to: mail.to, subject: mail.subject, text: mail.text });
    },
    close: () => transport.close(),
  };
}
