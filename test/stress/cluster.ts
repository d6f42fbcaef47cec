// Server processes on one database (a SQLite file or a PostgreSQL database), each in a slot with a fixed port, that can
// be SIGKILLed and restarted in place: the stress test's "deployment". Clients address slots, as they would address
// instances behind a proxy.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { type ServerProcess, spawnServer } from '../support/process.js';
import { sleep } from './settings.js';

export interface Slot {
  readonly index: number;
  readonly port: number;
  readonly url: string;
  /** Answering requests: started, ready, and not killed since. */
  up: boolean;
  process: ServerProcess | null;
}

/**
 * A free TCP port on 127.0.0.1 below the kernel's ephemeral range. A slot keeps its port across restarts, and while
 * its server is down an ephemeral port could be taken as the source port of some outgoing connection (ours included),
 * making the restart fail with EADDRINUSE; ports below the range are never handed out that way.
 */
async function freePort(random: () => number): Promise<number> {
  let lowestEphemeral = 32768;
  try {
    lowestEphemeral = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]) || lowestEphemeral;
  } catch {
    // Not Linux: Linux's default range is a fair guess.
  }
  const low = Math.max(1024, lowestEphemeral - 12_000);
  for (let attempt = 0; attempt < 100; attempt++) {
    const port = low + Math.floor(random() * (lowestEphemeral - low));
    const free = await new Promise<boolean>((resolve) => {
      const probe = createServer();
      probe.once('error', () => resolve(false));
      probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
    });
    if (free) return port;
  }
  throw new Error('no free port below the ephemeral range');
}

export class Cluster {
  readonly slots: Slot[] = [];
  /** Every process ever started, to read their logs at the end. */
  readonly incarnations: ServerProcess[] = [];
  /** Processes that exited without being killed by us (a crash is a finding). */
  readonly unexpectedExits: string[] = [];
  readonly startMs: number[] = [];
  kills = 0;
  private readonly killed = new Set<ServerProcess>();

  constructor(
    /** DATABASE_URL of every server: `file:…` or `postgresql://…`. */
    private readonly databaseUrl: string,
    private readonly env: Record<string, string>,
  ) {}

  async start(count: number): Promise<void> {
    for (let index = 0; index < count; index++) {
      const port = await freePort(Math.random);
      this.slots.push({ index, port, url: `http://127.0.0.1:${port}`, up: false, process: null });
    }
    await Promise.all(this.slots.map((slot) => this.boot(slot)));
  }

  /** A random slot that is up, or null while none is. */
  pick(random: () => number): Slot | null {
    const up = this.slots.filter((slot) => slot.up);
    return up.length === 0 ? null : (up[Math.floor(random() * up.length)] as Slot);
  }

  /** Whether we killed this process (so a request it never answered is explained). */
  wasKilled(server: ServerProcess): boolean {
    return this.killed.has(server);
  }

  allUp(): boolean {
    return this.slots.every((slot) => slot.up);
  }

  /** SIGKILL, the way a crash or the OOM killer ends a process: no shutdown code runs. */
  async kill(slot: Slot): Promise<void> {
    const victim = slot.process;
    if (!victim) return;
    slot.up = false;
    this.killed.add(victim);
    this.kills += 1;
    await victim.kill();
    slot.process = null;
  }

  /** Starts the slot's server again on the same port and resolves once it answers /ready. */
  async boot(slot: Slot): Promise<void> {
    const begun = performance.now();
    const server = spawnServer({
      ...this.env,
      DATABASE_URL: this.databaseUrl,
      HOST: '127.0.0.1',
      PORT: String(slot.port),
    });
    this.incarnations.push(server);
    slot.process = server;
    void server.exited.then((code) => {
      if (!this.killed.has(server)) this.unexpectedExits.push(`server on port ${slot.port} exited by itself (${code})`);
    });
    for (;;) {
      if (server.child.exitCode !== null || server.child.signalCode !== null) {
        throw new Error(`server on port ${slot.port} exited while starting:\n${server.stdout.join('\n')}\n${server.stderr.join('\n')}`);
      }
      try {
        const ready = await fetch(`${slot.url}/ready`, { signal: AbortSignal.timeout(2_000) });
        await ready.arrayBuffer();
        if (ready.status === 200) break;
      } catch {
        // Not listening yet.
      }
      if (performance.now() - begun > 60_000) throw new Error(`server on port ${slot.port} not ready within 60 s`);
      await sleep(40);
    }
    this.startMs.push(performance.now() - begun);
    slot.up = true;
  }

  /** SIGKILLs every running server (the run ends with one more crash, which must lose nothing either). */
  async killAll(): Promise<void> {
    await Promise.all(
      this.slots.map(async (slot) => {
        const victim = slot.process;
        if (!victim) return;
        slot.up = false;
        this.killed.add(victim);
        await victim.kill();
        slot.process = null;
      }),
    );
  }

  /** Log lines at error level or worse (pino level ≥ 50) from every process, and anything on stderr. */
  problems(): string[] {
    const found: string[] = [];
    for (const server of this.incarnations) {
      for (const line of server.stdout) {
        try {
          if (((JSON.parse(line) as { level?: number }).level ?? 0) >= 50) found.push(line);
        } catch {
          found.push(`non-JSON log line: ${line}`);
        }
      }
      for (const line of server.stderr) found.push(`stderr: ${line}`);
    }
    return found;
  }

  /** Log lines at warn level (pino 40), reported in the summary. */
  warnings(): string[] {
    return this.incarnations.flatMap((server) =>
      server.stdout.filter((line) => {
        try {
          return (JSON.parse(line) as { level?: number }).level === 40;
        } catch {
          return false;
        }
      }),
    );
  }
}
