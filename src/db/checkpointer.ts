// SQLite's WAL checkpoints, moved off the event loop. By default the connection whose commit takes the WAL past
// 1,000 pages copies them into the database file there and then, inside its COMMIT: for the server's writer that
// is a synchronous pause of several ms on the one event loop every few hundred items or review cycles (and ~20 %
// of a bulk intake's database time, measured in BENCHMARKS.md). With background checkpoints the writer connection
// never checkpoints (wal_autocheckpoint = 0); a worker thread with a connection of its own runs PASSIVE
// checkpoints (which never wait for, nor block, readers and writers) after commits, at most one per
// CHECKPOINT_INTERVAL_MS. If the worker fails, the writer goes back to checkpointing itself, so the WAL never
// grows without bound.
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/** The shortest time between two checkpoints while commits keep coming. */
export const CHECKPOINT_INTERVAL_MS = 200;

/** SQLite's own default, which the writer goes back to when the worker is lost. */
export const INLINE_AUTOCHECKPOINT_PAGES = 1000;

/** What the worker answers after each checkpoint: PRAGMA wal_checkpoint's row. */
export interface CheckpointResult {
  /** 1 when the checkpoint could not run to the end (another connection held a lock it needed). */
  busy: number;
  /** Frames in the WAL. */
  log: number;
  /** Frames of them now in the database file. */
  checkpointed: number;
}

// The worker is a few lines of plain CommonJS run with `eval`: no TypeScript loader is needed to start it (from
// dist/ or from the sources under tsx and vitest), and it loads the same better-sqlite3 as the writer.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const connection = new Database(workerData.file, { fileMustExist: true, timeout: 0 });
let last = 0;
let timer = null;
const checkpoint = () => {
  timer = null;
  last = Date.now();
  let result;
  try {
    result = connection.pragma('wal_checkpoint(PASSIVE)')[0];
  } catch (error) {
    result = { busy: 1, log: -1, checkpointed: -1, error: String(error && error.message) };
  }
  parentPort.postMessage({ kind: 'checkpointed', result });
};
parentPort.on('message', (message) => {
  if (message === 'wake') {
    if (timer === null) timer = setTimeout(checkpoint, Math.max(0, last + workerData.intervalMs - Date.now()));
  } else if (message === 'close') {
    if (timer !== null) clearTimeout(timer);
    connection.close();
    parentPort.postMessage({ kind: 'closed' });
  }
});
`;

type WorkerMessage = { kind: 'checkpointed'; result: CheckpointResult & { error?: string } } | { kind: 'closed' };

export interface CheckpointerOptions {
  /** Called when the worker is lost (it failed or exited): the writer must checkpoint for itself again. */
  onLost: (error: Error) => void;
}

export class BackgroundCheckpointer {
  private worker: Worker | null;
  /** A wake-up was sent and its checkpoint has not answered yet. */
  private pending = false;
  /** A commit came while one was pending: its checkpoint may have started before it, so another follows. */
  private again = false;
  private closing = false;
  private readonly results = new Set<(result: CheckpointResult) => void>();

  constructor(file: string, options: CheckpointerOptions) {
    const driver = createRequire(import.meta.url).resolve('better-sqlite3');
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { file, driver, intervalMs: CHECKPOINT_INTERVAL_MS },
      resourceLimits: { maxOldGenerationSizeMb: 32 },
    });
    // Never what keeps the process alive.
    worker.unref();
    worker.on('message', (message: WorkerMessage) => {
      if (message.kind !== 'checkpointed') return;
      this.pending = false;
      for (const listener of this.results) listener(message.result);
      if (this.again) {
        this.again = false;
        this.wake();
      }
    });
    const lost = (error: Error) => {
      if (this.worker !== worker || this.closing) return;
      this.worker = null;
      options.onLost(error);
    };
    worker.on('error', lost);
    worker.on('exit', (code) => lost(new Error(`the checkpoint worker exited with code ${code}`)));
    this.worker = worker;
  }

  /** Something was committed: a checkpoint follows within CHECKPOINT_INTERVAL_MS. */
  wake(): void {
    if (!this.worker) return;
    if (this.pending) {
      this.again = true;
      return;
    }
    this.pending = true;
    this.worker.postMessage('wake');
  }

  /** Calls `listener` with every checkpoint's result (for tests and diagnostics); returns its removal. */
  onCheckpoint(listener: (result: CheckpointResult) => void): () => void {
    this.results.add(listener);
    return () => this.results.delete(listener);
  }

  /**
   * Closes the worker's connection (when it is the file's last, SQLite checkpoints the whole WAL and removes it,
   * as the writer's close would have) and ends the worker.
   */
  async close(): Promise<void> {
    const worker = this.worker;
    if (!worker || this.closing) return;
    this.closing = true;
    this.worker = null;
    await new Promise<void>((resolve) => {
      const done = () => resolve();
      worker.on('message', (message: WorkerMessage) => {
        if (message.kind === 'closed') done();
      });
      worker.once('exit', done);
      worker.once('error', done);
      worker.postMessage('close');
    });
    await worker.terminate();
  }

  /** For the test of the fallback: ends the worker as a crash would. */
  async kill(): Promise<void> {
    await this.worker?.terminate();
  }
}
