// Whether this instance can write: the outcome of its real writes, and a small write probe to see
// when a failure has passed. /ready answers from it (src/http/readiness.ts), so a load balancer stops
// sending traffic to an instance whose disk is full or whose database file became read-only.
import type { Database } from './client.js';

/** SQLite's result codes for a database that cannot be written (extended forms included: SQLITE_IOERR_WRITE, …). */
const SQLITE_STORAGE = /^SQLITE_(FULL|IOERR|READONLY|CANTOPEN|CORRUPT|NOTADB)/;
/** SQLite's own messages for the same, for errors that kept only the message. */
const SQLITE_STORAGE_MESSAGES =
  /database or disk is full|disk I\/O error|attempt to write a readonly database|unable to open database file|database disk image is malformed/;
/** PostgreSQL: disk full, I/O error, read-only transaction (a standby), data or index corrupted. */
const POSTGRES_STORAGE = new Set(['53100', '58030', '25006', 'XX001', 'XX002']);

interface MaybeWrapped {
  code?: unknown;
  originalCode?: unknown;
  message?: unknown;
  cause?: unknown;
  meta?: { driverAdapterError?: unknown };
}

/**
 * The code of a write failure that says the storage itself refuses writes (disk full, I/O error,
 * read-only), raw from the driver or wrapped by Prisma; null for any other error (a constraint, a busy
 * lock, a domain refusal), which says nothing about whether the database can be written.
 */
export function storageFailure(error: unknown, depth = 0): string | null {
  if (typeof error !== 'object' || error === null || depth > 4) return null;
  const { code, originalCode, message, cause, meta } = error as MaybeWrapped;
  for (const value of [code, originalCode]) {
    if (typeof value === 'string' && (SQLITE_STORAGE.test(value) || POSTGRES_STORAGE.has(value))) return value;
  }
  if (typeof message === 'string') {
    const found = SQLITE_STORAGE_MESSAGES.exec(message);
    if (found) return found[0];
  }
  return storageFailure(cause, depth + 1) ?? storageFailure(meta?.driverAdapterError, depth + 1);
}

/** A write that changes nothing anyone reads but still writes a page (SQLite) or takes a transaction id (PostgreSQL). */
async function probeWrite(db: Database): Promise<void> {
  await db.write(async (_tx, sql) => {
    if (db.dialect === 'postgresql') {
      await sql.all('SELECT txid_current()');
      return;
    }
    const [row] = await sql.all<{ user_version: number | bigint }>('PRAGMA user_version');
    await sql.run(`PRAGMA user_version = ${Number(row?.user_version ?? 0)}`);
  });
}

export interface WriteHealthOptions {
  /** While writes fail, the probe runs at most this often, however often /ready is asked (default 1 s). */
  probeIntervalMs?: number;
  /** Milliseconds on the app's clock (createApp passes its Clock; tests move it by hand). */
  now?: () => number;
}

/** Follows the writes made through `database` (use it in place of the database it wraps). */
export class WriteHealth {
  readonly database: Database;
  private failure: { code: string } | null = null;
  private probing: Promise<void> | null = null;
  private lastProbeAt = Number.NEGATIVE_INFINITY;
  private readonly probeIntervalMs: number;
  private readonly now: () => number;

  constructor(inner: Database, options: WriteHealthOptions = {}) {
    this.probeIntervalMs = options.probeIntervalMs ?? 1_000;
    this.now = options.now ?? Date.now;
    const followed = <T>(writing: Promise<T>): Promise<T> =>
      writing.then(
        (value) => {
          this.failure = null;
          return value;
        },
        (error: unknown) => {
          this.noteFailure(error);
          throw error;
        },
      );
    const write: Database['write'] = (work) => followed(inner.write(work));
    const perform: Database['perform'] = (operation) => followed(inner.perform(operation));
    this.database = new Proxy(inner, {
      get(target, property) {
        if (property === 'write') return write;
        if (property === 'perform') return perform;
        const value = Reflect.get(target, property, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
  }

  /** The storage failure the last write met, or null when the last write (or probe) succeeded. */
  get failing(): string | null {
    return this.failure?.code ?? null;
  }

  /**
   * Whether writes work: true until a write meets a storage failure; then false until a write
   * succeeds, which the probe tries at most once per interval, one at a time.
   */
  async writable(): Promise<boolean> {
    if (this.failure === null) return true;
    if (this.probing === null && this.now() - this.lastProbeAt >= this.probeIntervalMs) {
      this.lastProbeAt = this.now();
      this.probing = probeWrite(this.database)
        .catch(() => undefined)
        .finally(() => {
          this.probing = null;
        });
    }
    if (this.probing) await this.probing;
    return this.failure === null;
  }

  private noteFailure(error: unknown): void {
    const code = storageFailure(error);
    if (code !== null) this.failure = { code };
  }
}
