// One knowledge worker thread (worker.ts), started on first use. It holds the process open only while it has work,
// and a worker that dies fails what it held and is replaced on the next call.
import { Worker } from 'node:worker_threads';
import { ApiError } from '../api/errors.ts';
import type { WorkerJob, WorkerReply } from './worker.ts';

type Job = WorkerJob extends infer J ? (J extends WorkerJob ? Omit<J, 'id'> : never) : never;
type ReplyOf<O extends Job['op']> = Extract<WorkerReply, { op: O }>;

export class KnowledgeWorker {
  private worker: Worker | undefined;
  private readonly pending = new Map<number, { resolve: (r: WorkerReply) => void; reject: (e: Error) => void }>();
  private nextId = 1;

  private start(): Worker {
    if (this.worker) return this.worker;
    const w = new Worker(new URL('./worker.ts', import.meta.url));
    w.on('message', (reply: WorkerReply) => {
      const p = this.pending.get(reply.id);
      if (!p) return;
      this.pending.delete(reply.id);
      if (this.pending.size === 0) w.unref();
      p.resolve(reply);
    });
    const fail = (e: Error) => {
      if (this.worker === w) this.worker = undefined;
      for (const p of this.pending.values()) p.reject(e);
      this.pending.clear();
    };
    w.on('error', fail);
    w.on('exit', () => fail(new Error('the knowledge worker stopped')));
    this.worker = w;
    return w;
  }

  async run<O extends Job['op']>(job: Extract<Job, { op: O }>): Promise<ReplyOf<O>> {
    const w = this.start();
    const id = this.nextId++;
    w.ref();
    const reply = await new Promise<WorkerReply>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      w.postMessage({ ...job, id });
    });
    if ('error' in reply) {
      const known = reply.error.code && ['UNSUPPORTED_FILE', 'CORRUPTED_FILE', 'FILE_TOO_LARGE'].includes(reply.error.code);
      throw known ? new ApiError(reply.error.code as 'CORRUPTED_FILE', reply.error.message) : new Error(reply.error.message);
    }
    return reply as ReplyOf<O>;
  }

  async close(): Promise<void> {
    const w = this.worker;
    this.worker = undefined;
    await w?.terminate();
  }
}
