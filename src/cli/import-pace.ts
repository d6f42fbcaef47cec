// How `leasehold import` shares SQLite's one write lock with the servers and commands writing beside it.
//
// SQLite has no queue for its write lock: a writer that finds it held gets SQLITE_BUSY and tries again
// later (write-lock.ts). An import that commits chunk after chunk takes the lock again a few ms after
// each COMMIT, so a reviewer's claim, retrying every few ms, lands in that short window only by luck and
// waits a whole chunk each time. Alone, the import goes at full speed; once another process has
// committed (PRAGMA data_version changed), it takes short turns at the lock and leaves a gap after each
// turn longer than a waiting writer's longest retry pause, for as long as the others keep writing.
import { LONGEST_LOCK_RETRY_MS } from '../db/write-lock.js';

/** While sharing, how long one chunk's transaction should hold the write lock. */
export const SHARED_TURN_MS = 5;
/** While sharing, the pause after each chunk: a writer waiting for the lock retries within it. */
export const HAND_OVER_GAP_MS = LONGEST_LOCK_RETRY_MS + 2;
/** How long after another process's last commit the import keeps sharing. */
export const SHARING_FOR_MS = 1_000;
/** The smallest chunk while sharing: a turn of a few items would spend its time on BEGIN and COMMIT. */
export const MIN_SHARED_CHUNK = 16;

export interface PaceOptions {
  /** The chunk size asked for (`--chunk-size`): the most items one transaction holds. */
  maxChunk: number;
  /** Milliseconds on a monotonic clock (performance.now in use). */
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

export class ImportPace {
  private readonly maxChunk: number;
  private readonly now: () => number;
  private readonly sleep: (ms: number) => Promise<void>;
  private sharingUntil = Number.NEGATIVE_INFINITY;
  /**
   * What one item costs a chunk, in ms (null until a chunk has committed): the least seen lately, since a
   * chunk's time includes any wait for the lock, which says nothing about how long it then holds it.
   */
  private msPerItem: number | null = null;

  constructor(options: PaceOptions) {
    this.maxChunk = options.maxChunk;
    this.now = options.now ?? (() => performance.now());
    this.sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
  }

  /** True while another process has committed within the last SHARING_FOR_MS. */
  sharing(): boolean {
    return this.now() < this.sharingUntil;
  }

  /** How many items the next chunk takes: all that was asked for alone, one turn's worth while sharing. */
  chunkSize(): number {
    if (!this.sharing()) return this.maxChunk;
    if (this.msPerItem === null) return Math.min(this.maxChunk, MIN_SHARED_CHUNK);
    return Math.max(Math.min(this.maxChunk, MIN_SHARED_CHUNK), Math.min(this.maxChunk, Math.floor(SHARED_TURN_MS / this.msPerItem)));
  }

  /**
   * Called before each chunk with whether another process has committed since the last call. While
   * sharing, waits the hand-over gap first, so a writer that found the lock held gets it.
   */
  async beforeChunk(othersCommitted: boolean): Promise<void> {
    if (othersCommitted) this.sharingUntil = this.now() + SHARING_FOR_MS;
    // Not cut short when the other writer has committed in it: a reviewer's next write follows its
    // first by a few ms, and a gap that ends at once makes it wait a whole turn (measured: review
    // cycles during an import at 0.46 of unloaded against 0.61).
    if (this.sharing()) await this.sleep(HAND_OVER_GAP_MS);
  }

  /** Called after each committed chunk with its size and how long it took, lock waits included. */
  afterChunk(items: number, ms: number): void {
    if (items <= 0) return;
    const perItem = ms / items;
    // The least lately: a lower cost is taken at once, a higher one creeps in by 5 % a chunk.
    this.msPerItem = this.msPerItem === null ? perItem : Math.min(perItem, this.msPerItem * 1.05);
  }
}
