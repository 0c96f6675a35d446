// Raw HTTP over a socket, for requests no client library sends (malformed or asterisk-form targets): the bytes are
// written as given, and what came back before the server closed the connection (or the timeout) is returned.
import net from 'node:net';

export function rawHttp(origin: string, bytes: string, timeoutMs = 2000): Promise<string> {
  const { port } = new URL(origin);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), '127.0.0.1', () => socket.write(bytes));
    let out = '';
    socket.on('data', (d) => (out += d.toString()));
    socket.setTimeout(timeoutMs, () => socket.destroy());
    socket.on('close', () => resolve(out));
    socket.on('error', reject);
  });
}
