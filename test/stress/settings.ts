// Sizes of the stress run, read from the environment: CI runs the defaults, a longer local run is one variable away.
// STRESS_BACKEND picks the database (vitest.stress.config.ts sets it per project): SQLite (server processes and the
// command line on one file) or PostgreSQL (server processes on one database; no command line, which is SQLite-only).

export type StressBackend = 'sqlite' | 'postgresql';

export interface StressSettings {
  /** The database the servers share: one SQLite file, or one PostgreSQL database (LEASEHOLD_TEST_POSTGRES_URL's server). */
  backend: StressBackend;
  /** Items seeded over HTTP before the load starts (addItems, 500 per call). */
  items: number;
  /** Concurrent REVIEWER principals, each with its own API key. */
  reviewers: number;
  /** Least wall-clock length of the load; it also lasts until every kill is done. */
  seconds: number;
  /** SIGKILLs of a server during the load, each followed by a restart in place. */
  kills: number;
  /** Server processes on the one database: 2 on SQLite, 3 on PostgreSQL by default. */
  servers: number;
  /**
   * Items the command-line writer adds during the load (`leasehold import` and `add`). Always 0 on PostgreSQL: the
   * `leasehold` command line (seed A's commands) works on SQLite files only, so that run has no CLI writer.
   */
  cliItems: number;
  /** Seconds to wait after the load before reading the history, so lapsing leases are announced. */
  settleSeconds: number;
  /**
   * How far apart the writers' clocks may be, in ms (see JudgeOptions.clockToleranceMs in history.ts). 0 on both
   * backends: on SQLite every writer reads one machine's clock under the write lock; on PostgreSQL each instance
   * follows the database server's clock by a measured offset, and never stamps a change earlier than the last one
   * recorded, read under the write lock (decision 0008). STRESS_CLOCK_TOLERANCE_MS loosens it for experiments.
   */
  clockToleranceMs: number;
  /** Seed of the reviewers' random choices (timing is never reproducible; the mix of choices is). */
  seed: number;
}

function integer(name: string, fallback: number, min: number): number {
  const text = process.env[name];
  if (text === undefined || text === '') return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value < min) throw new Error(`${name} must be an integer ≥ ${min}, got ${JSON.stringify(text)}`);
  return value;
}

function backend(): StressBackend {
  const text = process.env.STRESS_BACKEND ?? 'sqlite';
  if (text !== 'sqlite' && text !== 'postgresql')
    throw new Error(`STRESS_BACKEND must be sqlite or postgresql, got ${JSON.stringify(text)}`);
  return text;
}

export function readSettings(): StressSettings {
  const database = backend();
  const postgres = database === 'postgresql';
  if (postgres && Number(process.env.STRESS_CLI_ITEMS ?? 0) > 0) {
    throw new Error('STRESS_CLI_ITEMS must be 0 on PostgreSQL: the leasehold command line works on SQLite files only.');
  }
  return {
    backend: database,
    items: integer('STRESS_ITEMS', 10_000, 1),
    reviewers: integer('STRESS_REVIEWERS', 64, 1),
    // The shortest lease is 30 s: a shorter load would never see one lapse and be re-claimed.
    seconds: integer('STRESS_SECONDS', 45, 31),
    kills: integer('STRESS_KILLS', 20, 0),
    // Two at least: a kill always leaves a server running, whose expiry announcer keeps working. Three on PostgreSQL,
    // where the instances do not share a file but a server, an advisory write lock and a LISTEN channel.
    servers: integer('STRESS_SERVERS', postgres ? 3 : 2, 2),
    cliItems: postgres ? 0 : integer('STRESS_CLI_ITEMS', 300, 0),
    settleSeconds: integer('STRESS_SETTLE_SECONDS', 5, 2),
    clockToleranceMs: integer('STRESS_CLOCK_TOLERANCE_MS', 0, 0),
    seed: integer('STRESS_SEED', Math.floor(Math.random() * 2 ** 31), 0),
  };
}

/** mulberry32: a small seeded generator, so a run's choices can be replayed with STRESS_SEED. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
