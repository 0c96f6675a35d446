// Makes sure the local PostgreSQL and Redis the tests use are answering, starting them the way this machine
// starts them when they are installed but stopped.
import { execSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';

const answers = (port: number) =>
  new Promise<boolean>((resolve) => {
    const s = net.connect({ host: '127.0.0.1', port, timeout: 1000 });
    s.once('connect', () => (s.destroy(), resolve(true)));
    s.once('error', () => resolve(false));
    s.once('timeout', () => (s.destroy(), resolve(false)));
  });

async function waitFor(port: number, name: string) {
  for (let i = 0; i < 50; i++) {
    if (await answers(port)) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${name} did not come up on port ${port}`);
}

function sh(cmd: string) {
  execSync(cmd, { stdio: 'inherit' });
}

export async function ensureServices(): Promise<void> {
  if (!(await answers(5432))) {
    const versions = fs.existsSync('/etc/postgresql') ? fs.readdirSync('/etc/postgresql') : [];
    if (!versions.length) throw new Error('PostgreSQL is not installed: run scripts/setup.sh first');
    console.log(`tests: starting PostgreSQL ${versions[0]}`);
    sh(`pg_ctlcluster --skip-systemctl-redirect ${versions[0]} main start`);
    await waitFor(5432, 'PostgreSQL');
  }
  if (!(await answers(6379))) {
    console.log('tests: starting Redis');
    fs.mkdirSync('/var/lib/redis', { recursive: true });
    fs.mkdirSync('/var/log/redis', { recursive: true });
    sh('redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no --dir /var/lib/redis --logfile /var/log/redis/ci.log');
    await waitFor(6379, 'Redis');
  }
}
