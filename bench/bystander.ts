// A bystander: a process of its own that does nothing but sample its event-loop delay, as the server does
// (monitorEventLoopDelay, a timer due every 10 ms). Run beside a phase, it shows how late an idle process's
// timers run on the machine meanwhile: the share of the server's loop delay that is waiting for a core (the
// 2 cores shared with the subscriber processes and the bench), not the server's own work.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import readline from 'node:readline';

const SCRIPT = `
const { monitorEventLoopDelay } = require('node:perf_hooks');
const period = 10;
let sampler = monitorEventLoopDelay({ resolution: period });
sampler.enable();
require('node:readline').createInterface({ input: process.stdin }).on('line', (line) => {
  if (line === 'mark') {
    sampler.disable();
    sampler = monitorEventLoopDelay({ resolution: period });
    sampler.enable();
    process.stdout.write('marked\\n');
  } else {
    const ms = (p) => Math.max(0, sampler.percentile(p) / 1e6 - period);
    process.stdout.write(JSON.stringify({ p50: ms(50), p99: ms(99), max: ms(100), samples: sampler.count }) + '\\n');
  }
});
`;

export interface BystanderDelay {
  /** ms past the timer's due time. */
  p50: number;
  p99: number;
  max: number;
  samples: number;
}

export class Bystander {
  private constructor(
    private readonly child: ChildProcess,
    private readonly lines: AsyncIterator<string>,
  ) {}

  static start(): Bystander {
    const child = spawn(process.execPath, ['-e', SCRIPT], { stdio: ['pipe', 'pipe', 'inherit'] });
    const lines = readline.createInterface({ input: child.stdout as NodeJS.ReadableStream })[Symbol.asyncIterator]();
    return new Bystander(child, lines);
  }

  private async ask(line: string): Promise<string> {
    this.child.stdin?.write(`${line}\n`);
    const next = await this.lines.next();
    if (next.done) throw new Error('The bystander process ended.');
    return next.value;
  }

  /** Starts a new window. */
  async mark(): Promise<void> {
    await this.ask('mark');
  }

  /** The delay since the last mark. */
  async read(): Promise<BystanderDelay> {
    return JSON.parse(await this.ask('read')) as BystanderDelay;
  }

  async stop(): Promise<void> {
    this.child.stdin?.end();
    if (this.child.exitCode === null) {
      this.child.kill();
      await once(this.child, 'exit');
    }
  }
}
