// The alerts page's JSON (GET/PUT /api/app/alerts, POST /alerts/test, /alerts/secret, GET /alerts/deliveries).
// Types only: the browser imports them.

export interface AlertSettingsView {
  /** Whether the owner has saved alerts yet (until then, the defaults below are only suggestions). */
  saved: boolean;
  /** The address alerts are mailed to; null: no mail. */
  email: string | null;
  /** The signed-in user's own address (the suggestion). */
  accountEmail: string;
  /** Whether this server sends mail at all (LAGOON_SMTP_URL). */
  mail: boolean;
  webhookUrl: string | null;
  /** The signing secret (`whsec_…`), shown to its owner to verify deliveries; null until saved. */
  webhookSecret: string | null;
  /** Low-balance thresholds in USD and DIEM; null: off. */
  lowUsd: number | null;
  lowDiem: number | null;
  /** Alert when a key with a consumption limit reaches 50, 80 and 100 % of it in a period. */
  keyBudgets: boolean;
}

export interface AlertSettingsInput {
  email: string | null;
  webhookUrl: string | null;
  lowUsd: number | null;
  lowDiem: number | null;
  keyBudgets: boolean;
}

export type AlertChannel = 'email' | 'webhook';
export type AlertDeliveryStatus = 'pending' | 'delivered' | 'failed';

export interface AlertDelivery {
  id: string;
  eventId: string;
  /** ms since the epoch: when the alert was raised. */
  at: number;
  /** When the last attempt was recorded. */
  updatedAt: number;
  event: string;
  summary: string;
  channel: AlertChannel;
  target: string;
  status: AlertDeliveryStatus;
  attempts: number;
  /** The webhook's HTTP status on the last attempt (null for mail, or when no answer came). */
  responseCode: number | null;
  error: string | null;
}

export interface AlertDeliveryPage {
  items: AlertDelivery[];
  total: number;
  page: number;
  pages: number;
}

export interface AlertTestSent {
  eventId: string;
  channels: AlertChannel[];
}
