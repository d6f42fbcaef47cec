// Starts the real app (HTTP server, a database of this run's backend, injected clock) for a test file.
import { Writable } from 'node:stream';
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { print } from 'graphql';
import { type AppOptions, createApp } from '../../src/app.js';
import type { DatabaseLocation } from '../../src/config/database-location.js';
import { type Database, openDatabase } from '../../src/db/client.js';
import type { Role } from '../../src/domain/access.js';
import { ManualClock } from '../../src/domain/clock.js';
import { createLogger } from '../../src/logger.js';
import { createApiKey } from '../../src/services/api-keys.js';
import { type TestDatabase, testDatabase, WRITE_MODE } from './database.js';

type Gql = <TResult, TVariables>(
  document: TypedDocumentNode<TResult, TVariables>,
  variables?: TVariables,
  headers?: Record<string, string>,
) => Promise<{ data?: TResult; errors?: { message: string; extensions?: Record<string, unknown> }[] }>;

/** A caller with its own API key. */
export interface TestClient {
  name: string;
  key: string;
  /** `{ authorization: 'Bearer …' }`, for raw requests and WebSocket connectionParams. */
  headers: Record<string, string>;
  gql: Gql;
}

export interface TestServer {
  url: string;
  clock: ManualClock;
  db: Database;
  /** The SQLite file; '' on PostgreSQL (use databaseUrl). */
  file: string;
  /** DATABASE_URL for another process on the same database. */
  databaseUrl: string;
  /** Every log line the server wrote, raw. */
  logs: string[];
  /** Runs an operation as the principal "setup" (ADMIN and PROPOSER: sets up categories, adds items). */
  gql: Gql;
  /**
   * A client for principal `name` with `roles` (default REVIEWER), made on first use through the
   * real key service and reused afterwards. Claims must come from a reviewer other than "setup".
   */
  as(name: string, roles?: Role[]): Promise<TestClient>;
  /** Waits until expiries the clock has passed are recorded (the announcer runs on clock timers). */
  settle(): Promise<void>;
  stop(): Promise<void>;
}

export { tempDatabaseFile } from './database.js';

export async function postGraphQL(
  url: string,
  query: string,
  variables?: unknown,
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ query, variables }),
  });
}

export async function startTestServer(
  options: { file?: string; database?: TestDatabase; start?: number; config?: Partial<AppOptions['config']> } = {},
): Promise<TestServer> {
  // A database of its own on this run's backend, unless the test brings one (or a SQLite file).
  const own = options.file || options.database ? null : await testDatabase();
  const database = options.database ?? own;
  const location: DatabaseLocation = options.file ? { dialect: 'sqlite', file: options.file } : (database as TestDatabase).location;
  const file = location.dialect === 'sqlite' ? location.file : '';
  const databaseUrl = location.dialect === 'sqlite' ? `file:${location.file}` : location.url;
  const clock = new ManualClock(options.start ?? Date.UTC(2026, 10, 30, 9, 0, 0));
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      logs.push(String(chunk));
      done();
    },
  });
  const db = await openDatabase({ location, synchronous: 'NORMAL', writeMode: WRITE_MODE });
  const app = createApp({
    db,
    clock,
    config: { host: '127.0.0.1', port: 0, graphiql: true, shutdownTimeoutMs: 2_000, maxBodyBytes: 2 * 1024 * 1024, ...options.config },
    logger: createLogger('debug', sink),
  });
  const url = await app.start();
  const clients = new Map<string, Promise<TestClient>>();
  const as = (name: string, roles: Role[] = ['REVIEWER']): Promise<TestClient> => {
    const id = `${name}\u0000${[...roles].sort().join(',')}`;
    let client = clients.get(id);
    if (!client) {
      // One principal may be asked for with several role sets: each is a key of the same principal.
      client = createApiKey({ db, clock }, { name: 'test-setup', authenticated: false }, { name, roles, samePrincipal: true }).then(
        ({ key }) => {
          const auth = { authorization: `Bearer ${key}` };
          return {
            name,
            key,
            headers: auth,
            async gql(document, variables, headers) {
              const response = await postGraphQL(url, print(document), variables, { ...auth, ...headers });
              return (await response.json()) as never;
            },
          } satisfies TestClient;
        },
      );
      clients.set(id, client);
    }
    return client;
  };
  return {
    url,
    clock,
    db,
    file,
    databaseUrl,
    logs,
    async gql(document, variables, headers) {
      return (await as('setup', ['ADMIN', 'PROPOSER'])).gql(document, variables, headers);
    },
    as,
    settle: () => app.live.settled(),
    async stop() {
      await app.stop();
      await own?.cleanup();
    },
  };
}

/** JWT settings for a test server: HS256 with `secret`, names from `sub`, roles from `roles`, no leeway. */
export function hs256(secret: string): NonNullable<AppOptions['config']['jwt']> {
  return { algorithm: 'HS256', key: secret, issuer: null, audience: null, nameClaim: 'sub', rolesClaim: 'roles', clockToleranceSeconds: 0 };
}
