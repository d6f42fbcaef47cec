// The operations both example clients run: add an item, claim it, decide it, and watch it happen live.
// Plain strings, parsed by each client's own `gql`; `npm run codegen` writes their manifest of trusted
// documents (gql/persisted-documents.json), and the clients send each operation by its hash there
// (PERSISTED_OPERATIONS, docs/clients.md). Every selection set asks for `__typename`, as the clients' caches
// add it to what they send: the server runs the manifest's text, so it must hold what the caches read.
import { readFileSync } from 'node:fs';

/** The newest event's sequence: a subscription from it misses nothing that happens after this read. */
export const LATEST = /* GraphQL */ `query Latest { events(last: 1) { __typename edges { __typename node { __typename id sequence } } } }`;

/**
 * The batch's events after `after`, as they happen (filtered to the batch, so other traffic does not
 * interleave). graphql-ws does not acknowledge a subscription, so starting from a sequence read first,
 * rather than live, is what makes sure the first events are not missed.
 */
export const WATCH = /* GraphQL */ `subscription Watch($batchId: String!, $afterSequence: Int) {
  queueEvents(afterSequence: $afterSequence, filter: { batchId: $batchId }) {
    __typename sequence type item { __typename id recordId status claimState }
  }
}`;

export type Latest = { events: { edges: { node: { sequence: number } }[] } };

/** The sequence to watch from: the newest event's, or 0 on an empty history. */
export const latestSequence = (data: Latest | undefined | null): number => data?.events.edges[0]?.node.sequence ?? 0;

export const ADD = /* GraphQL */ `mutation Add($input: AddItemInput!) {
  addItem(input: $input) {
    __typename
    ... on AddItemPayload { item { __typename id recordId status } }
    ... on Error { message }
  }
}`;

export const CLAIM = /* GraphQL */ `mutation Claim($batchId: String!) {
  claimItem(input: { batchId: $batchId, leaseSeconds: 60 }) {
    __typename
    ... on ClaimItemPayload { claimed item { __typename id recordId claimState } lease { __typename token leaseExpiresAt } }
    ... on Error { message }
  }
}`;

export const DECIDE = /* GraphQL */ `mutation Decide($token: String!) {
  decideItem(input: { token: $token, decision: ACCEPTED }) {
    __typename
    ... on DecideItemPayload { item { __typename id status claimState } }
    ... on Error { message }
  }
}`;

/** The examples' trusted documents, written by `npm run codegen`: `{ "sha256:<hex>": "<document>" }`. */
export const MANIFEST = new URL('./gql/persisted-documents.json', import.meta.url);

/** The manifest's hash of each operation, by operation name. */
const HASHES = new Map(
  Object.entries(JSON.parse(readFileSync(MANIFEST, 'utf8')) as Record<string, string>).map(([hash, document]) => [
    /^(?:query|mutation|subscription)\s+(\w+)/.exec(document)?.[1] ?? '',
    hash,
  ]),
);

/** What names an operation by its hash in the manifest (`extensions.persistedQuery`), or null when it is not there. */
export function persistedQuery(operationName: string | undefined): { version: 1; sha256Hash: string } | null {
  const hash = operationName === undefined ? undefined : HASHES.get(operationName);
  return hash === undefined ? null : { version: 1, sha256Hash: hash };
}

export interface ExampleOptions {
  /** The server, e.g. http://127.0.0.1:4000 (GraphQL at /graphql, WebSocket on the same path). */
  url: string;
  /** Keys: one that may add items (PROPOSER), one that reviews (REVIEWER), one that watches (VIEWER). */
  proposerKey: string;
  reviewerKey: string;
  viewerKey: string;
  /** The batch to add the item to (each run its own, so runs do not see each other). */
  batchId: string;
  /** A category the server has. */
  category: string;
}

/** What a run saw: the event types its subscription received for the item, in order, and its final status. */
export interface ExampleRun {
  events: string[];
  status: string;
}

export type Payload = { message?: string } & Record<string, unknown>;

/** The payload of a mutation result, or an error with the UserError's message. */
export function payload<T>(result: Payload | undefined | null, what: string): T {
  if (!result) throw new Error(`${what}: no answer`);
  if (typeof result.message === 'string') throw new Error(`${what}: ${result.message}`);
  return result as T;
}

export function optionsFromEnvironment(): ExampleOptions {
  const need = (name: string) => {
    const value = process.env[name];
    if (!value) throw new Error(`Set ${name} (see docs/clients.md).`);
    return value;
  };
  return {
    url: process.env.LEASEHOLD_URL ?? 'http://127.0.0.1:4000',
    proposerKey: need('LEASEHOLD_PROPOSER_KEY'),
    reviewerKey: need('LEASEHOLD_REVIEWER_KEY'),
    viewerKey: need('LEASEHOLD_VIEWER_KEY'),
    batchId: process.env.LEASEHOLD_BATCH ?? `example-${Date.now()}`,
    category: need('LEASEHOLD_CATEGORY'),
  };
}

/** What a subscription has seen of the item, and a way to wait until its decision has arrived. */
export class Watch {
  readonly events: string[] = [];
  private failure: unknown = null;
  private settle: () => void = () => {};
  private readonly done = new Promise<void>((resolve) => {
    this.settle = resolve;
  });

  seen(type: string | undefined): void {
    if (type) this.events.push(type);
    if (type === 'ITEM_DECIDED') this.settle();
  }

  fail(error: unknown): void {
    this.failure = error;
    this.settle();
  }

  /** Resolves once ITEM_DECIDED has arrived; fails with the subscription's error, or after `timeoutMs`. */
  async decided(timeoutMs = 10_000): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`no ITEM_DECIDED within ${timeoutMs / 1000} s (saw ${this.events.join(', ')})`)),
        timeoutMs,
      );
    });
    try {
      await Promise.race([this.done, late]);
    } finally {
      clearTimeout(timer);
    }
    if (this.failure) throw this.failure;
  }
}
