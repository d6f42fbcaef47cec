// graphql-ws subscribers for the live measurements: each one its own client and WebSocket
// (createClient with `ws`, lazy: false, retryAttempts: 0) authenticated with its own API key
// (connectionParams.authorization), recording for every payload the receipt time (Date.now() in
// `next`, the same clock the server stamps occurredAt with).
import { type Client, createClient } from 'graphql-ws';
import WebSocket from 'ws';

/** What one subscriber saw, in arrival order. */
export interface SubscriberLog {
  /** Event sequence numbers. */
  sequences: number[];
  /** Date.now() when `next` ran. */
  receivedAt: number[];
  /** The payload's serverNow (ms since epoch), NaN when the query does not ask for it. */
  serverNow: number[];
}

export interface PoolErrors {
  /** Connections that failed to open or closed while the pool was open. */
  connection: number;
  /** `error` sink calls and payloads carrying GraphQL errors. */
  graphql: number;
  /** Subscriptions the server completed while the pool was open. */
  completed: number;
  /** Payloads without a usable sequence. */
  malformed: number;
}

export interface EventPayload {
  sequence?: number;
  type?: string;
  occurredAt?: string;
  serverNow?: string;
  leaseExpiresAt?: string | null;
  item?: { id?: string } | null;
}

export interface SubscriberPool {
  logs: SubscriberLog[];
  errors: PoolErrors;
  /** Subscribers that have received at least one payload. */
  withEvents(): number;
  /** The lowest, over subscribers, of the highest sequence each has received (0 when one has none). */
  lowestHighest(): number;
  close(): Promise<void>;
}

export interface PoolOptions {
  url: string;
  count: number;
  /** `Bearer <key>` for each subscriber, one each (a refused one closes with 4401: a connection error). */
  authorizations: readonly string[];
  query: string;
  /** Opened this many at a time, each batch waiting for its connection acks. */
  batch?: number;
  /** Called on every payload, after it is logged. */
  onPayload?: (payload: EventPayload, receivedAt: number, subscriber: number) => void;
  /**
   * Keep every payload's sequence and times in `logs` (default). Off for the live-at-scale part, whose
   * workers count in constant memory: ten million deliveries logged are arrays of hundreds of megabytes
   * whose growth and collection would be charged to the subscribers' processes, not to the server.
   */
  keepLogs?: boolean;
}

const newErrors = (): PoolErrors => ({ connection: 0, graphql: 0, completed: 0, malformed: 0 });

/** Opens `count` subscribers; resolves once every connection is acknowledged (or has failed) and subscribed. */
export async function openSubscribers(options: PoolOptions): Promise<SubscriberPool> {
  const logs: SubscriberLog[] = [];
  const highest: number[] = [];
  const clients: Client[] = [];
  const unsubscribes: (() => void)[] = [];
  const errors = newErrors();
  let closing = false;
  const batch = options.batch ?? 50;
  const keepLogs = options.keepLogs ?? true;
  if (options.authorizations.length < options.count) {
    throw new Error(`${options.count} subscribers need ${options.count} credentials, got ${options.authorizations.length}`);
  }

  for (let first = 0; first < options.count; first += batch) {
    const opened: Promise<void>[] = [];
    for (let index = first; index < Math.min(options.count, first + batch); index++) {
      const log: SubscriberLog = { sequences: [], receivedAt: [], serverNow: [] };
      logs.push(log);
      highest.push(0);
      opened.push(
        new Promise<void>((resolve) => {
          let settled = false;
          const settle = () => {
            if (!settled) {
              settled = true;
              resolve();
            }
          };
          const client = createClient({
            url: options.url,
            connectionParams: { authorization: options.authorizations[index] },
            webSocketImpl: WebSocket,
            lazy: false,
            retryAttempts: 0,
            onNonLazyError: () => {
              if (!closing) errors.connection++;
              settle();
            },
            on: {
              connected: () => settle(),
              closed: () => {
                if (!closing) errors.connection++;
                settle();
              },
            },
          });
          clients.push(client);
          unsubscribes.push(
            client.subscribe<{ queueEvents?: EventPayload }>(
              { query: options.query },
              {
                next: (result) => {
                  const receivedAt = Date.now();
                  if (result.errors?.length) errors.graphql++;
                  const payload = result.data?.queueEvents;
                  if (!payload || typeof payload.sequence !== 'number') {
                    errors.malformed++;
                    return;
                  }
                  if (keepLogs) {
                    log.sequences.push(payload.sequence);
                    log.receivedAt.push(receivedAt);
                    log.serverNow.push(payload.serverNow ? Date.parse(payload.serverNow) : Number.NaN);
                  }
                  if (payload.sequence > (highest[index] ?? 0)) highest[index] = payload.sequence;
                  options.onPayload?.(payload, receivedAt, index);
                },
                error: () => {
                  if (!closing) errors.graphql++;
                },
                complete: () => {
                  if (!closing) errors.completed++;
                },
              },
            ),
          );
        }),
      );
    }
    await Promise.all(opened);
  }

  return {
    logs,
    errors,
    withEvents: () => highest.filter((sequence) => sequence > 0).length,
    lowestHighest: () => highest.reduce((low, value) => Math.min(low, value), Number.POSITIVE_INFINITY),
    async close() {
      closing = true;
      for (const unsubscribe of unsubscribes) unsubscribe();
      await Promise.all(clients.map((client) => client.dispose()));
    },
  };
}
