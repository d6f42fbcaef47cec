// The server under test: built once, spawned as `node dist/main.js` on a free loopback port.
// Callers authenticate with API keys made in the file beforehand (bench/keys.ts); the per-principal
// rate limit is off, because the benchmark measures the service, not the policy.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import net from 'node:net';
import { fileURLToPath } from 'node:url';
import { getStatus } from './http.js';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));

export function build(): void {
  const result = spawnSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, stdio: 'inherit' });
  if (result.status !== 0) throw new Error(`npm run build failed (exit ${result.status})`);
}

/** A port the kernel just handed out on 127.0.0.1 (released again before the server binds it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

/**
 * How the servers under benchmark are configured for identity, for the report. Each client sends its
 * own API key, so authentication is measured; the mutation rate limit (default 50/s per principal) is
 * turned off, as it would cap a single reviewer's cycles far below what the service sustains; and no
 * first ADMIN key is made (its banner on stderr would read as a warning), as the bench makes its keys.
 */
export const SERVER_POLICY =
  'RATE_LIMIT_PER_SECOND=0 (the per-principal mutation rate limit is off: the benchmark measures the service, not the policy), BOOTSTRAP_ADMIN_KEY=false (keys are made in the file beforehand), MAX_CONNECTIONS_PER_ADDRESS=0 (every client runs on this machine, so all share one address)';

/** Where a server keeps its data: a SQLite file, or (`databaseUrl`) a PostgreSQL database. */
export type ServerOptions = ({ databaseFile: string } | { databaseUrl: string }) & {
  synchronous: 'NORMAL' | 'FULL';
  /** Extra node flags, e.g. --cpu-prof. */
  nodeFlags?: string[];
  /** Environment over the bench's own (an undefined value unsets a variable, so the server's default applies). */
  env?: Record<string, string | undefined>;
};

export interface RunningServer {
  port: number;
  /** The server process id (for its CPU time in /proc). */
  pid: number;
  /** Lines the server wrote (LOG_LEVEL=warn, so any line is a warning or an error). */
  logs: string[];
  stop(): Promise<number | null>;
}

export async function startServer(options: ServerOptions): Promise<RunningServer> {
  const port = await freePort();
  // LEASEHOLD_BENCH_SERVER_FLAGS: node flags for every server the bench starts, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof" to see where a phase's time goes.
  const extraFlags = (process.env.LEASEHOLD_BENCH_SERVER_FLAGS ?? '').split(/\s+/).filter((flag) => flag !== '');
  const child: ChildProcess = spawn(process.execPath, [...(options.nodeFlags ?? []), ...extraFlags, 'dist/main.js'], {
    cwd: ROOT,
    env: {
      ...process.env,
      NODE_ENV: 'production',
      HOST: '127.0.0.1',
      PORT: String(port),
      DATABASE_URL: 'databaseUrl' in options ? options.databaseUrl : `file:${options.databaseFile}`,
      LOG_LEVEL: 'warn',
      SQLITE_SYNCHRONOUS: options.synchronous,
      GRAPHIQL: 'false',
      // See SERVER_POLICY.
      RATE_LIMIT_PER_SECOND: '0',
      // 1,000 subscribers and more come from one address.
      MAX_CONNECTIONS_PER_ADDRESS: '0',
      BOOTSTRAP_ADMIN_KEY: 'false',
      ...options.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const logs: string[] = [];
  // LEASEHOLD_BENCH_SERVER_OUTPUT: a file that gets everything the servers write instead (e.g. with --trace-gc in
  // LEASEHOLD_BENCH_SERVER_FLAGS); their lines are then not kept as warnings.
  const copy = process.env.LEASEHOLD_BENCH_SERVER_OUTPUT;
  const collect = (chunk: Buffer) => {
    if (copy) appendFileSync(copy, chunk);
    for (const line of chunk.toString('utf8').split('\n')) if (line.trim() !== '' && !copy) logs.push(line);
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));

  const deadline = Date.now() + 30_000;
  while ((await getStatus(port, '/ready')) !== 200) {
    if (child.exitCode !== null) throw new Error(`server exited during start-up:\n${logs.join('\n')}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`server not ready after 30 s:\n${logs.join('\n')}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    port,
    pid: child.pid ?? 0,
    logs,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}
