// /ready while the database does not answer: 503 every time, but one log line per outage (balancers probe every
// few seconds), without the error's stack, and one when it answers again.
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type App, createApp } from '../../src/app.js';
import { type Database, openDatabase } from '../../src/db/client.js';
import { ManualClock } from '../../src/domain/clock.js';
import { createLogger } from '../../src/logger.js';
import { type TestDatabase, testDatabase } from '../support/database.js';

describe('/ready when the database does not answer', () => {
  let scratch: TestDatabase;
  let db: Database;
  let app: App;
  let url: string;
  let silent = false;
  const logs: Record<string, unknown>[] = [];
  beforeAll(async () => {
    scratch = await testDatabase();
    db = await openDatabase({ location: scratch.location });
    const read = new Proxy(db.read, {
      get(target, property) {
        if (property === '$queryRawUnsafe' && silent) {
          return () =>
            Promise.reject(
              Object.assign(new Error('connect ECONNREFUSED 10.0.0.9:5432\n    at internal stack line'), { code: 'ECONNREFUSED' }),
            );
        }
        return Reflect.get(target, property);
      },
    });
    const sink = new Writable({
      write(chunk, _encoding, done) {
        for (const line of String(chunk).split('\n').filter(Boolean)) logs.push(JSON.parse(line));
        done();
      },
    });
    app = createApp({
      db: { ...db, read } as Database,
      clock: new ManualClock(Date.UTC(2026, 10, 30, 9)),
      config: { host: '127.0.0.1', port: 0, graphiql: false, shutdownTimeoutMs: 1_000, maxBodyBytes: 1024 * 1024 },
      logger: createLogger('info', sink),
    });
    url = await app.start();
  });
  afterAll(async () => {
    // Stopping the app closes the database it was given.
    await app.stop();
    await scratch.cleanup();
  });

  it('answers 503 on every probe, logs it once without a stack, and once more when it answers again', async () => {
    expect((await fetch(`${url}/ready`)).status).toBe(200);
    silent = true;
    for (let probe = 0; probe < 5; probe++) expect((await fetch(`${url}/ready`)).status).toBe(503);
    const down = logs.filter((line) => line.msg === 'not ready: the database did not answer');
    expect(down).toHaveLength(1);
    expect(down[0]).toMatchObject({ level: 40, reason: 'connect ECONNREFUSED 10.0.0.9:5432', code: 'ECONNREFUSED' });
    expect(JSON.stringify(down[0])).not.toContain('internal stack line');
    silent = false;
    expect((await fetch(`${url}/ready`)).status).toBe(200);
    expect((await fetch(`${url}/ready`)).status).toBe(200);
    expect(logs.filter((line) => line.msg === 'ready again: the database answers')).toHaveLength(1);
  });
});
