// Starts the real app (HTTP server, SQLite file, injected clock) for a test file.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { print } from 'graphql';
import { type AppOptions, createApp } from '../../src/app.js';
import { type Database, openDatabase } from '../../src/db/client.js';
import type { Role } from '../../src/domain/access.js';
import { ManualClock } from '../../src/domain/clock.js';
import { createLogger } from '../../src/logger.js';
import { createApiKey } from '../../src/services/api-keys.js';

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
  file: string;
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

export function tempDatabaseFile(): { file: string; cleanup(): void } {
  const dir = mkdtempSync(path.join(tmpdir(), 'leasehold-test-'));
  return { file: path.join(dir, 'test.db'), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

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
  options: { file?: string; start?: number; config?: Partial<AppOptions['config']> } = {},
): Promise<TestServer> {
  const temp = options.file ? null : tempDatabaseFile();
  const file = options.file ?? (temp as { file: string }).file;
  const clock = new ManualClock(options.start ?? Date.UTC(2026, 10, 30, 9, 0, 0));
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      logs.push(String(chunk));
      done();
    },
  });
  const db = await openDatabase({ file, synchronous: 'NORMAL' });
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
      client = createApiKey({ db, clock }, { name: 'test-setup', authenticated: false }, { name, roles }).then(({ key }) => {
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
      });
      clients.set(id, client);
    }
    return client;
  };
  return {
    url,
    clock,
    db,
    file,
    logs,
    async gql(document, variables, headers) {
      return (await as('setup', ['ADMIN', 'PROPOSER'])).gql(document, variables, headers);
    },
    as,
    settle: () => app.live.settled(),
    async stop() {
      await app.stop();
      temp?.cleanup();
    },
  };
}

/** JWT settings for a test server: HS256 with `secret`, names from `sub`, roles from `roles`, no leeway. */
export function hs256(secret: string): NonNullable<AppOptions['config']['jwt']> {
  return { algorithm: 'HS256', key: secret, issuer: null, audience: null, nameClaim: 'sub', rolesClaim: 'roles', clockToleranceSeconds: 0 };
}
