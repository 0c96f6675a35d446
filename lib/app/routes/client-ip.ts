// The client's IP for the app's per-IP limits (sign-in failures, sign-ups). Next keeps any X-Forwarded-For a client
// sends, so that header cannot be trusted; the custom server stamps the socket's address into its own header before
// Next sees the request (overwriting whatever the client sent), and route handlers read only that.
import type { IncomingMessage } from 'node:http';
import type { Env } from '../../config.ts';

export const CLIENT_IP_HEADER = 'x-lagoon-client-ip';

/**
 * Sets CLIENT_IP_HEADER on a raw request. With LAGOON_TRUST_PROXY=1 (behind one reverse proxy that appends to
 * X-Forwarded-For) the last X-Forwarded-For entry is the client; otherwise the socket's peer is.
 */
export function stampClientIp(req: IncomingMessage, env: Env = process.env): void {
  let ip = req.socket.remoteAddress ?? 'unknown';
  if (env.LAGOON_TRUST_PROXY === '1') {
    const xff = req.headers['x-forwarded-for'];
    const last = (Array.isArray(xff) ? xff.join(',') : (xff ?? '')).split(',').pop()?.trim();
    if (last) ip = last;
  }
  req.headers[CLIENT_IP_HEADER] = ip;
}

/** The stamped client IP of an app request ('unknown' when it did not come through the server). */
export const clientIp = (req: Request): string => req.headers.get(CLIENT_IP_HEADER)?.trim() || 'unknown';
