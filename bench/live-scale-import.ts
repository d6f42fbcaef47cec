// The "live at scale" import phase (SQLite): `leasehold import` of many items from a JSON Lines file, run as
// its own process (bin/leasehold.js, as an operator runs it) on the server's file while the subscribers
// watch and the reviewer loops. The server sees the import's commits through its feed like any other
// process's, so this is the bulk intake at its largest.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { ROOT } from './server.js';

/** Writes `items` lines of seed A's import format, in batches of 500. */
export async function writeImportFile(file: string, items: number, category: string, prefix: string): Promise<void> {
  const out = createWriteStream(file);
  for (let n = 0; n < items; n++) {
    const line = JSON.stringify({
      batch_id: `${prefix}-${Math.floor(n / 500)}`,
      record_id: `r${n}`,
      proposed_category: category,
      reason: 'Imported while watched.',
    });
    if (!out.write(`${line}\n`)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
}

export interface ImportRun {
  seconds: number;
  code: number | null;
  /** The end of what it printed (its summary, or its error). */
  output: string;
}

/** Runs `leasehold import DB FILE --progress none` to the end; `database` is a SQLite file or a postgresql:// URL. */
export async function runImport(database: string, file: string, synchronous: 'NORMAL' | 'FULL'): Promise<ImportRun> {
  const started = performance.now();
  const child = spawn(process.execPath, ['bin/leasehold.js', 'import', database, file, '--progress', 'none'], {
    cwd: ROOT,
    env: { ...process.env, SQLITE_SYNCHRONOUS: synchronous, LEASEHOLD_ACTOR: 'bench-import' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString('utf8')).slice(-2_000);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const [code] = (await once(child, 'exit')) as [number | null];
  return { seconds: (performance.now() - started) / 1000, code, output: output.trim() };
}
