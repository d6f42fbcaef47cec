// Another process holding the database's write lock, as `sqlite3 file 'BEGIN IMMEDIATE;'` left open would:
// on SQLite a transaction begun IMMEDIATE, on PostgreSQL the advisory lock every Leasehold writer takes
// first. Run as `node --import tsx write-lock-holder.ts <DATABASE_URL>`; prints "locked" once it holds the
// lock, and on a line "release" on stdin lets go, prints "released" and exits.
import { createInterface } from 'node:readline';
import Database from 'better-sqlite3';
import pg from 'pg';
import { POSTGRES_WRITE_LOCK } from '../../src/db/client.js';

const url = process.argv[2] ?? '';

async function hold(): Promise<() => Promise<void>> {
  if (url.startsWith('postgres')) {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query('BEGIN');
    await client.query(POSTGRES_WRITE_LOCK);
    return async () => {
      await client.query('COMMIT');
      await client.end();
    };
  }
  const connection = new Database(url.replace(/^file:/, ''), { fileMustExist: true, timeout: 0 });
  connection.exec('BEGIN IMMEDIATE');
  return async () => {
    connection.exec('COMMIT');
    connection.close();
  };
}

const release = await hold();
process.stdout.write('locked\n');
for await (const line of createInterface({ input: process.stdin })) {
  if (line.trim() !== 'release') continue;
  await release();
  process.stdout.write('released\n');
  process.exit(0);
}
