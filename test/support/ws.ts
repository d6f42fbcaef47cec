// graphql-ws clients for tests: a subscription that collects every payload, single operations over the
// socket, and a bounded polling helper for asynchronous delivery.
import type { ExecutionResult, GraphQLFormattedError } from 'graphql';
import { type Client, createClient } from 'graphql-ws';
import WebSocket from 'ws';

/** Polls `probe` until it returns something truthy (which is returned); fails after `timeoutMs`. */
export async function waitFor<T>(probe: () => T | null | undefined | false, timeoutMs = 5_000, describe?: () => string): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value) return value;
    if (performance.now() > deadline) throw new Error(`waitFor: not met within ${timeoutMs} ms${describe ? `: ${describe()}` : ''}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Everything one subscription received, as it arrives. */
export interface Collected<T> {
  /** `data` of every `next` payload without errors, in order. */
  readonly data: T[];
  /** Every `next` payload as received. */
  readonly results: ExecutionResult<T>[];
  /** Errors that ended the subscription: an `error` message's list, or the close event. */
  error: readonly GraphQLFormattedError[] | unknown;
  completed: boolean;
  /** Settles once the server completes or fails the subscription (never rejects). */
  readonly ended: Promise<void>;
  unsubscribe(): void;
}

export interface WsClient {
  readonly client: Client;
  /** The client's open socket (`ws`), e.g. to pause it or cut it off. */
  readonly socket: WebSocket;
  subscribe<T = Record<string, unknown>>(query: string, variables?: Record<string, unknown>): Collected<T>;
  /** Runs a query or mutation over the socket and resolves with its single result. */
  execute<T = Record<string, unknown>>(query: string, variables?: Record<string, unknown>): Promise<ExecutionResult<T>>;
  /** Resolves once the connection has closed, for whatever reason. */
  readonly closed: Promise<void>;
  /** How the connection closed, once it has. */
  readonly closeEvent: { code: number; reason: string } | null;
  /** Closes the socket cleanly (1000). */
  close(): Promise<void>;
}

/**
 * Opens a graphql-ws connection to `${baseUrl}/graphql` (http → ws) and resolves once it is
 * acknowledged. `connectionParams` carries the credential, e.g. a TestClient's `headers`.
 */
export async function connectWs(baseUrl: string, connectionParams: Record<string, unknown>): Promise<WsClient> {
  const url = `${baseUrl.replace(/^http/, 'ws')}/graphql`;
  let socket: WebSocket | null = null;
  let failed: (error: unknown) => void = () => undefined;
  const holder: { client?: Client } = {};
  let markClosed: () => void = () => undefined;
  let closeEvent: { code: number; reason: string } | null = null;
  const closed = new Promise<void>((resolve) => {
    markClosed = resolve;
  });
  const connected = new Promise<void>((resolve, reject) => {
    failed = reject;
    const client = createClient({
      url,
      connectionParams,
      webSocketImpl: WebSocket,
      retryAttempts: 0,
      lazy: false,
      onNonLazyError: (error) => failed(error),
      on: {
        connected: (opened) => {
          socket = opened as WebSocket;
          resolve();
        },
        closed: (event) => {
          closeEvent = event as { code: number; reason: string };
          markClosed();
        },
      },
    });
    holder.client = client;
  });
  await connected;
  const client = holder.client as Client;

  const subscribe = <T>(query: string, variables?: Record<string, unknown>): Collected<T> => {
    let end: () => void = () => undefined;
    const ended = new Promise<void>((resolve) => {
      end = resolve;
    });
    const collected: Collected<T> = {
      data: [],
      results: [],
      error: null,
      completed: false,
      ended,
      unsubscribe: () => undefined,
    };
    collected.unsubscribe = client.subscribe<T>(
      { query, variables },
      {
        next: (result) => {
          collected.results.push(result as ExecutionResult<T>);
          if (!result.errors && result.data) collected.data.push(result.data as T);
        },
        error: (error) => {
          collected.error = error;
          end();
        },
        complete: () => {
          collected.completed = true;
          end();
        },
      },
    );
    return collected;
  };

  return {
    client,
    get socket() {
      return socket as unknown as WebSocket;
    },
    subscribe,
    closed,
    get closeEvent() {
      return closeEvent;
    },
    async execute<T>(query: string, variables?: Record<string, unknown>) {
      const one = subscribe<T>(query, variables);
      await one.ended;
      if (one.error) throw new Error(`operation failed over WebSocket: ${JSON.stringify(one.error)}`);
      return one.results[0] as ExecutionResult<T>;
    },
    async close() {
      await client.dispose();
      await closed;
    },
  };
}

/** The error codes of a subscription that ended with an `error` message. */
export function errorCodes(collected: Collected<unknown>): unknown[] {
  const errors = Array.isArray(collected.error) ? (collected.error as GraphQLFormattedError[]) : [];
  return errors.map((error) => error.extensions?.code);
}

/**
 * For subscriptions whose start on the server cannot be observed: makes one change at a time (awaited, so
 * none is still in flight afterwards) until `received()` holds, giving each change a moment to arrive.
 */
export async function writeUntilReceived(
  received: () => boolean,
  write: (n: number) => Promise<unknown>,
  maxWrites = 200,
): Promise<number> {
  for (let n = 0; n < maxWrites; n++) {
    await write(n);
    const deadline = performance.now() + 25;
    while (!received() && performance.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 2));
    if (received()) return n + 1;
  }
  throw new Error(`nothing received after ${maxWrites} changes`);
}
