// A child process holding a share of the subscribers, so 1,000 WebSocket clients do not all
// compete for one event loop. Driven over IPC by bench/fanout.ts (see WorkerRequest / WorkerReply).
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { openSubscribers, type PoolErrors, type SubscriberLog, type SubscriberPool } from './ws-clients.js';

export type WorkerRequest =
  | { kind: 'open'; url: string; count: number; authorizations: string[]; query: string }
  | { kind: 'status' }
  | { kind: 'measure' }
  | { kind: 'collect' }
  | { kind: 'close' };

export interface WorkerStatus {
  withEvents: number;
  lowestHighest: number;
  errors: PoolErrors;
}

export interface WorkerResults {
  logs: SubscriberLog[];
  errors: PoolErrors;
  /** Event-loop delay of this process from `measure` to `collect` (ms). */
  loopDelay: { p50: number; p99: number; max: number };
  /** CPU time this process used from `measure` to `collect` (ms). */
  cpuMs: number;
}

export type WorkerReply =
  | { kind: 'opened'; status: WorkerStatus }
  | { kind: 'status'; status: WorkerStatus }
  | { kind: 'measuring' }
  | { kind: 'results'; results: WorkerResults }
  | { kind: 'closed' }
  | { kind: 'failed'; message: string };

let pool: SubscriberPool | null = null;
const delay = monitorEventLoopDelay({ resolution: 5 });
let cpuAtMeasure = process.cpuUsage();

const reply = (message: WorkerReply) => process.send?.(message);
const status = (): WorkerStatus =>
  pool
    ? { withEvents: pool.withEvents(), lowestHighest: pool.lowestHighest(), errors: pool.errors }
    : { withEvents: 0, lowestHighest: 0, errors: { connection: 0, graphql: 0, completed: 0, malformed: 0 } };

async function handle(request: WorkerRequest): Promise<void> {
  switch (request.kind) {
    case 'open':
      pool = await openSubscribers({
        url: request.url,
        count: request.count,
        authorizations: request.authorizations,
        query: request.query,
      });
      reply({ kind: 'opened', status: status() });
      return;
    case 'status':
      reply({ kind: 'status', status: status() });
      return;
    case 'measure':
      delay.reset();
      delay.enable();
      cpuAtMeasure = process.cpuUsage();
      reply({ kind: 'measuring' });
      return;
    case 'collect': {
      delay.disable();
      const cpu = process.cpuUsage(cpuAtMeasure);
      const ms = (ns: number) => ns / 1e6;
      reply({
        kind: 'results',
        results: {
          logs: pool?.logs ?? [],
          errors: status().errors,
          loopDelay: { p50: ms(delay.percentile(50)), p99: ms(delay.percentile(99)), max: ms(delay.max) },
          cpuMs: (cpu.user + cpu.system) / 1000,
        },
      });
      return;
    }
    case 'close':
      await pool?.close();
      pool = null;
      reply({ kind: 'closed' });
      process.disconnect?.();
      return;
  }
}

process.on('message', (message: WorkerRequest) => {
  handle(message).catch((error: unknown) => reply({ kind: 'failed', message: error instanceof Error ? error.message : String(error) }));
});
// The parent going away ends this process too.
process.on('disconnect', () => setTimeout(() => process.exit(0), 100));
