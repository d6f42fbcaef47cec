// Where the machine's CPU went over a phase of the "live at scale" part: the server, the subscriber processes,
// the bench itself (the review loop's client and the bulk's sender), and the rest (an import's process,
// anything else running), from /proc. On 2 shared cores this says how much of a slowdown is the machine's.
import { machineBusyMs, processCpuMs } from './fanout.js';

export interface CpuShares {
  seconds: number;
  /** Each in cores (1 = one core busy the whole phase). */
  server: number;
  subscribers: number;
  bench: number;
  /** The machine's busy time not accounted for above. */
  rest: number;
  machine: number;
}

interface Sample {
  at: number;
  server: number;
  subscribers: number;
  bench: number;
  machine: number;
}

function sample(serverPid: number, subscriberPids: readonly number[]): Sample {
  const own = process.cpuUsage();
  return {
    at: performance.now(),
    server: processCpuMs(serverPid),
    subscribers: subscriberPids.reduce((sum, pid) => sum + processCpuMs(pid), 0),
    bench: (own.user + own.system) / 1000,
    machine: machineBusyMs(),
  };
}

/** CPU over a phase: `start()` before it, `stop()` after. */
export class CpuProbe {
  private before: Sample | null = null;

  constructor(
    private readonly serverPid: number,
    private readonly subscriberPids: readonly number[],
  ) {}

  start(): void {
    this.before = sample(this.serverPid, this.subscriberPids);
  }

  stop(): CpuShares {
    const after = sample(this.serverPid, this.subscriberPids);
    const before = this.before ?? after;
    const ms = Math.max(1, after.at - before.at);
    const cores = (key: keyof Sample) => (after[key] - before[key]) / ms;
    const server = cores('server');
    const subscribers = cores('subscribers');
    const bench = cores('bench');
    const machine = cores('machine');
    return { seconds: ms / 1000, server, subscribers, bench, rest: Math.max(0, machine - server - subscribers - bench), machine };
  }
}

/** "server 0.62, subscribers 0.91, bench 0.20, rest 0.21 of 1.94 cores busy". */
export function describeCpu(shares: CpuShares): string {
  const f = (cores: number) => cores.toFixed(2);
  return `server ${f(shares.server)}, subscribers ${f(shares.subscribers)}, bench ${f(shares.bench)}, rest ${f(shares.rest)} of ${f(shares.machine)} cores busy`;
}
