// `leasehold import` beside another writer: SQLite's write lock has no queue, so an import committing
// chunk after chunk would keep a server's reviewers waiting a whole chunk per write. Once another process
// commits, the import takes short turns and leaves a gap after each (src/cli/import-pace.ts).
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HAND_OVER_GAP_MS, ImportPace, MIN_SHARED_CHUNK, SHARED_TURN_MS, SHARING_FOR_MS } from '../../src/cli/import-pace.js';
import { openDatabase } from '../../src/db/client.js';
import { systemClock } from '../../src/domain/clock.js';
import { addItems } from '../../src/services/items.js';
import { BIN, runLeasehold, spawnProcess, tempDir } from './support.js';

let scratch: { dir: string; cleanup(): void };
beforeEach(() => {
  scratch = tempDir('leasehold-import-sharing-');
});
afterEach(() => scratch.cleanup());

const ITEMS = 3_000;
const CHUNK = 500;

async function init(name: string): Promise<string> {
  const result = await runLeasehold(['init', name, '--category', 'a'], { cwd: scratch.dir });
  expect(result.code).toBe(0);
  return path.join(scratch.dir, name);
}

function writeItems(): void {
  const rows = Array.from({ length: ITEMS }, (_, index) =>
    JSON.stringify({ batch_id: 'imported', record_id: String(index), proposed_category: 'a', reason: 'r' }),
  );
  writeFileSync(path.join(scratch.dir, 'items.jsonl'), `${rows.join('\n')}\n`);
}

/**
 * The history's ITEM_ADDED events in order, as runs: one run per import transaction (its items share
 * one clock reading), `other` for each of the other writer's commits.
 */
function runs(file: string): ('other' | number)[] {
  const db = new Database(file, { readonly: true });
  try {
    const rows = db
      .prepare(
        `SELECT e."occurredAt" AS at, i."batchId" AS batch FROM "Event" e JOIN "Item" i ON i."id" = e."itemId" WHERE e."type" = 'ITEM_ADDED' ORDER BY e."id"`,
      )
      .all() as { at: number; batch: string }[];
    const result: ('other' | number)[] = [];
    let last: number | null = null;
    for (const row of rows) {
      if (row.batch !== 'imported') {
        result.push('other');
        last = null;
      } else if (row.at === last) {
        result[result.length - 1] = (result.at(-1) as number) + 1;
      } else {
        result.push(1);
        last = row.at;
      }
    }
    return result;
  } finally {
    db.close();
  }
}

describe('import beside another writer', () => {
  it('alone it commits whole chunks; beside a writer it takes short turns, and the writer gets in between them', async () => {
    writeItems();
    const alone = await init('alone.db');
    const quiet = await runLeasehold(['import', 'alone.db', 'items.jsonl', '--chunk-size', String(CHUNK), '--progress', 'none'], {
      cwd: scratch.dir,
    });
    expect(quiet.code).toBe(0);
    expect(runs(alone)).toEqual(Array.from({ length: ITEMS / CHUNK }, () => CHUNK));

    const shared = await init('shared.db');
    const db = await openDatabase({ file: shared });
    const deps = { db, clock: systemClock };
    let stop = false;
    let written = 0;
    const writer = (async () => {
      while (!stop) {
        await addItems(deps, { name: 'other-writer', authenticated: false }, [
          { batchId: 'other', recordId: String(written), proposedCategory: 'a', reason: 'r' },
        ]);
        written += 1;
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
    })();
    try {
      const importing = spawnProcess(
        process.execPath,
        [BIN, 'import', 'shared.db', 'items.jsonl', '--chunk-size', String(CHUNK), '--progress', 'none'],
        {
          cwd: scratch.dir,
        },
      );
      const result = await importing.done;
      expect(result.code, result.stderr).toBe(0);
    } finally {
      stop = true;
      await writer;
      await db.close();
    }

    const history = runs(shared);
    const chunks = history.filter((run): run is number => run !== 'other');
    expect(chunks.reduce((sum, size) => sum + size, 0)).toBe(ITEMS);
    // From the other writer's first commit on, the import takes turns: more transactions than alone. How many
    // items a turn holds is about SHARED_TURN_MS of work, which since adding became set-based can be a whole
    // chunk on a fast machine (ImportPace's tests below check the sizing on a clock of their own) …
    const sharing = history.slice(history.indexOf('other'));
    const turns = sharing.filter((run): run is number => run !== 'other');
    expect(turns.length).toBeGreaterThan(ITEMS / CHUNK);
    // … and the writer's commits land between the turns: the gap after many turns holds one (a loaded
    // machine slows the writer's own loop, so not after every one).
    const handedOver = sharing.filter((run, index) => typeof run === 'number' && sharing[index + 1] === 'other').length;
    expect(handedOver / turns.length).toBeGreaterThan(0.3);
  });
});

describe('ImportPace', () => {
  function paced(maxChunk = CHUNK) {
    let now = 0;
    const slept: number[] = [];
    const pace = new ImportPace({
      maxChunk,
      now: () => now,
      sleep: async (ms) => {
        slept.push(ms);
        now += ms;
      },
    });
    return { pace, slept, advance: (ms: number) => (now += ms) };
  }

  it('alone: whole chunks, no pause', async () => {
    const { pace, slept } = paced();
    await pace.beforeChunk(false);
    pace.afterChunk(CHUNK, 50);
    await pace.beforeChunk(false);
    expect(pace.chunkSize()).toBe(CHUNK);
    expect(slept).toEqual([]);
  });

  it('once another process commits: a gap before each chunk and chunks of one turn, until it has been quiet a while', async () => {
    const { pace, slept, advance } = paced();
    await pace.beforeChunk(false);
    pace.afterChunk(CHUNK, 50); // 0.1 ms an item
    await pace.beforeChunk(true);
    expect(slept).toEqual([HAND_OVER_GAP_MS]);
    expect(pace.chunkSize()).toBe(Math.floor(SHARED_TURN_MS / 0.1));

    // A chunk that waited for the lock says nothing of its cost: the turn does not shrink to nothing.
    pace.afterChunk(80, 80);
    expect(pace.chunkSize()).toBeGreaterThanOrEqual(Math.floor(SHARED_TURN_MS / 0.105));
    for (let index = 0; index < 100; index++) pace.afterChunk(80, 80);
    expect(pace.chunkSize()).toBe(MIN_SHARED_CHUNK);

    await pace.beforeChunk(false);
    expect(slept).toHaveLength(2);
    advance(SHARING_FOR_MS);
    await pace.beforeChunk(false);
    expect(slept).toHaveLength(2);
    expect(pace.chunkSize()).toBe(CHUNK);
  });

  it('a chunk size asked for below the smallest turn is kept', async () => {
    const { pace } = paced(5);
    await pace.beforeChunk(true);
    expect(pace.chunkSize()).toBe(5);
  });
});
