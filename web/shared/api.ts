// The dashboard's only way to the server: the public GraphQL API over HTTP (queries) and graphql-ws
// (subscriptions), with the API key as a Bearer credential on both.
import { type Client, createClient } from 'graphql-ws';
import type { TypedDocumentString } from '../gql/graphql.js';

/** The server refused the credential: HTTP 401, or the WebSocket closed with 4401/4403. */
export class RefusedError extends Error {
  override readonly name = 'RefusedError';
}

/** Close codes the server uses for a missing, invalid, expired (4401) or revoked (4403) credential. */
const REFUSED_CODES: readonly number[] = [4401, 4403];

export type ConnectionState =
  | { kind: 'connecting' }
  | { kind: 'live' }
  | { kind: 'reconnecting'; attempt: number; reason: string }
  | { kind: 'refused'; reason: string };

export interface ApiOptions {
  /** Base URL of the GraphQL endpoint (http: or https:); the WebSocket uses the same host and path. */
  endpoint: URL;
  key: string;
  /** Every change of the WebSocket's state; `live` after a reconnection means missed pushes must be caught up. */
  onState(state: ConnectionState, reconnected: boolean): void;
  /**
   * The server takes trusted documents by hash (PERSISTED_OPERATIONS allow or require, told by the page):
   * queries go as the hash alone, subscriptions as their text and hash (the server runs its own text for it).
   */
  persisted: boolean;
}

/** What identifies a document to a server that keeps the dashboard's manifest. */
function persistedQuery(document: { __meta__?: Record<string, unknown> }): { persistedQuery: { version: 1; sha256Hash: string } } | null {
  const hash = document.__meta__?.hash;
  return typeof hash === 'string' ? { persistedQuery: { version: 1, sha256Hash: hash } } : null;
}

export interface Sink<T> {
  next(data: T): void;
  /** The subscription ended with GraphQL errors (the connection itself is retried, not reported here). */
  error(message: string): void;
}

const describeClose = (event: { code: number; reason: string }): string =>
  event.reason ? `${event.reason} (close code ${event.code})` : `close code ${event.code}`;

const isCloseEvent = (value: unknown): value is { code: number; reason: string } =>
  typeof value === 'object' && value !== null && 'code' in value && typeof (value as { code: unknown }).code === 'number';

/** Backoff between reconnection attempts: quick at first (a restart takes seconds), at most 5 s. */
const retryDelay = (retries: number): number => Math.min(250 * 2 ** retries, 5_000) + Math.random() * 250;

export class Api {
  private socket: Client | null = null;
  private readonly authorization: string;
  /** Reconnection attempts since the connection was last up. */
  private attempts = 0;
  private everConnected = false;
  private disposed = false;
  /** The key was refused (reported once, whichever way it came). */
  private refused = false;

  constructor(private readonly options: ApiOptions) {
    this.authorization = `Bearer ${options.key}`;
  }

  /**
   * Opens the WebSocket now rather than with the first subscription (a page that shows its connection before it
   * subscribes to anything: /review). Nothing happens if it is open already.
   */
  connect(): void {
    this.socket ??= this.openSocket(false);
  }

  /** The WebSocket client, made on first use. */
  private get ws(): Client {
    this.socket ??= this.openSocket(true);
    return this.socket;
  }

  private openSocket(lazy: boolean): Client {
    const wsUrl = new URL(this.options.endpoint);
    wsUrl.protocol = wsUrl.protocol === 'https:' ? 'wss:' : 'ws:';
    return createClient({
      url: wsUrl.href,
      lazy,
      // Browsers cannot set headers on a WebSocket: the key goes in the connection_init payload.
      connectionParams: () => ({ authorization: this.authorization }),
      retryAttempts: Number.POSITIVE_INFINITY,
      retryWait: (retries) => new Promise((resolve) => setTimeout(resolve, retryDelay(retries))),
      // A refused credential will be refused again; anything else (a restart, a dropped network) is retried.
      shouldRetry: (event) => !(isCloseEvent(event) && REFUSED_CODES.includes(event.code)),
      on: {
        connecting: (isRetry) => {
          if (isRetry) this.attempts++;
          else this.options.onState({ kind: 'connecting' }, false);
        },
        connected: () => {
          const reconnected = this.everConnected;
          this.everConnected = true;
          this.attempts = 0;
          this.options.onState({ kind: 'live' }, reconnected);
        },
        closed: (event) => {
          if (this.disposed) return;
          if (isCloseEvent(event) && REFUSED_CODES.includes(event.code)) {
            this.refuse(describeClose(event));
            return;
          }
          this.options.onState(
            { kind: 'reconnecting', attempt: this.attempts + 1, reason: isCloseEvent(event) ? describeClose(event) : 'connection lost' },
            false,
          );
        },
      },
    });
  }

  /** A query's body: its hash alone to a server that knows the manifest, else its text. */
  private requestBody<Result, Variables>(document: TypedDocumentString<Result, Variables>, variables: Variables) {
    const extensions = this.options.persisted ? persistedQuery(document) : null;
    return extensions ? { variables, extensions } : { query: document.toString(), variables };
  }

  /** Runs a query over HTTP. Rejects with RefusedError on 401, with an Error for anything else that went wrong. */
  async query<Result, Variables>(
    document: TypedDocumentString<Result, Variables>,
    variables: Variables,
    onServerTime?: (serverNow: string, sentAt: number) => void,
  ): Promise<Result> {
    const sentAt = performance.now();
    const response = await fetch(this.options.endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', authorization: this.authorization },
      body: JSON.stringify(this.requestBody(document, variables)),
    });
    const body = (await response.json().catch(() => null)) as { data?: Result | null; errors?: { message: string }[] } | null;
    if (response.status === 401) throw new RefusedError(body?.errors?.[0]?.message ?? 'It answered HTTP 401.');
    if (!response.ok || !body?.data || body.errors?.length) {
      throw new Error(body?.errors?.[0]?.message ?? `The server answered ${response.status}.`);
    }
    const serverTime = (body.data as { serverTime?: unknown }).serverTime;
    if (typeof serverTime === 'string') onServerTime?.(serverTime, sentAt);
    return body.data;
  }

  /**
   * Runs a mutation over the WebSocket rather than HTTP: what the server ties to the connection (a claim with
   * `releaseOnDisconnect`) ends with it. Rejects with RefusedError when the credential is refused, with an
   * Error for GraphQL errors or a connection that closed first.
   */
  mutateOverSocket<Result, Variables>(document: TypedDocumentString<Result, Variables>, variables: Variables): Promise<Result> {
    const extensions = this.options.persisted ? persistedQuery(document) : null;
    return new Promise<Result>((resolve, reject) => {
      let settled = false;
      const settle = (outcome: () => void) => {
        if (settled) return;
        settled = true;
        outcome();
      };
      this.ws.subscribe<Result>(
        { query: document.toString(), ...(extensions ? { extensions } : {}), variables: variables as Record<string, unknown> },
        {
          next: (result) => {
            const refusal = result.errors?.find((error) => error.extensions?.code === 'UNAUTHENTICATED');
            if (refusal) settle(() => reject(new RefusedError(refusal.message)));
            else if (result.errors?.length) settle(() => reject(new Error(result.errors?.map((error) => error.message).join('; '))));
            else if (result.data) settle(() => resolve(result.data as Result));
          },
          error: (error) =>
            settle(() =>
              reject(
                isCloseEvent(error) && REFUSED_CODES.includes(error.code)
                  ? new RefusedError(describeClose(error))
                  : new Error(isCloseEvent(error) ? `The connection closed: ${describeClose(error)}.` : String(error)),
              ),
            ),
          complete: () => settle(() => reject(new Error('The server answered nothing.'))),
        },
      );
    });
  }

  /**
   * Subscribes over the WebSocket. `variables` is read each time the subscription is (re)sent, so a
   * resubscription after a reconnection carries the caller's latest position (e.g. `after`).
   */
  subscribe<Result, Variables>(
    document: TypedDocumentString<Result, Variables>,
    variables: () => Variables,
    sink: Sink<Result>,
  ): () => void {
    const extensions = this.options.persisted ? persistedQuery(document) : null;
    const payload = {
      query: document.toString(),
      ...(extensions ? { extensions } : {}),
      // graphql-ws sends this same object again on every reconnection; the getter makes that send current.
      get variables() {
        return variables() as Record<string, unknown>;
      },
    };
    let active = true;
    const dispose = this.ws.subscribe<Result>(payload, {
      next: (result) => {
        if (!active) return;
        // A stream ends with UNAUTHENTICATED when its key is revoked or its token expires, before the socket closes.
        const refusal = result.errors?.find((error) => error.extensions?.code === 'UNAUTHENTICATED');
        if (refusal) this.refuse(refusal.message);
        else if (result.errors?.length) sink.error(result.errors.map((error) => error.message).join('; '));
        else if (result.data) sink.next(result.data);
      },
      error: (error) => {
        // A refused credential is reported once, through onState (closed); other errors belong to this operation.
        if (!active || isCloseEvent(error)) return;
        sink.error(Array.isArray(error) ? error.map((item: { message: string }) => item.message).join('; ') : String(error));
      },
      complete: () => undefined,
    });
    return () => {
      active = false;
      dispose();
    };
  }

  private refuse(reason: string): void {
    if (this.disposed || this.refused) return;
    this.refused = true;
    this.options.onState({ kind: 'refused', reason }, false);
  }

  /** Closes the WebSocket for good (signing out, or a refused key). */
  dispose(): void {
    this.disposed = true;
    void this.socket?.dispose();
  }
}
