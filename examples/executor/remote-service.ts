// A tiny simulated "billing" service for the example executor: accounts, idempotent refunds, operation lookup and fault injection.
import { createHash, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Account {
  id: string;
  /** Refundable amount, in minor units (cents). A refund lowers it. */
  balance: number;
}

/** JSON with object keys sorted at every level, no whitespace: the same value always gives the same text. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value ?? null);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, entry]) => entry !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([key, entry]) => `${JSON.stringify(key)}:${canonicalJson(entry)}`).join(',')}}`;
}

/**
 * The fingerprint a proposer puts on a proposal and the executor presents before running it. Only the
 * account's own fields count, so a proposer and the service always agree; a missing account has one too,
 * so a deleted account reads as "changed" rather than as an error.
 */
export function fingerprintOf(account: Account | null): string {
  const data = account === null ? null : { id: account.id, balance: account.balance };
  return `sha256:${createHash('sha256').update(canonicalJson(data)).digest('hex')}`;
}

/**
 * What the next `POST /refunds` does instead of answering normally:
 * - `fail-before-processing`: 503 and nothing applied (the service was overloaded or down).
 * - `fail-after-applying`: the refund is applied, then 500 ("failure after accepting").
 * - `drop-response`: the refund is applied, then the connection is destroyed ("lost response").
 * - `hold`: the request is parked unprocessed until `releaseHeld()` (a request stuck in a queue or proxy
 *   that lands late, after the client gave up).
 */
export type Fault = 'fail-before-processing' | 'fail-after-applying' | 'drop-response' | 'hold';
export const FAULTS: readonly Fault[] = ['fail-before-processing', 'fail-after-applying', 'drop-response', 'hold'];

export interface RefundRequest {
  accountId: string;
  amount: number;
}

export interface RefundResult {
  refundId: string;
  accountId: string;
  amount: number;
  balanceAfter: number;
  operationId: string;
}

/** One idempotency key that took effect: what was asked, when, and the answer every repeat gets. */
export interface AppliedOperation {
  key: string;
  request: RefundRequest;
  appliedAt: string;
  result: RefundResult;
}

interface Answer {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

export interface RemoteService {
  /** Base URL, e.g. http://127.0.0.1:41234 (set once started). */
  readonly url: string;
  account(id: string): Account | undefined;
  /** Changes an account as another system would (the data a proposal was made against moves on). */
  setAccount(account: Account): void;
  /** Arms a fault for the next POST /refunds. */
  failNext(fault: Fault): void;
  /** Processes the requests parked by `hold`, in order; resolves with what each would have answered. */
  releaseHeld(): Promise<{ status: number; body: unknown; replayed: boolean }[]>;
  /** Keys that took effect. */
  readonly operations: ReadonlyMap<string, AppliedOperation>;
  /** Every refund applied, in order: each idempotency key should appear at most once. */
  readonly effects: readonly AppliedOperation[];
  /** Listens (again, on the same port after a stop); state survives a stop. */
  start(): Promise<string>;
  /** Stops listening and drops open connections: new requests are refused, as by a crashed service. */
  stop(): Promise<void>;
}

const MAX_BODY_BYTES = 64 * 1024;

export function createRemoteService(options: { accounts?: Account[]; host?: string; port?: number } = {}): RemoteService {
  const host = options.host ?? '127.0.0.1';
  let port = options.port ?? 0;
  const accounts = new Map((options.accounts ?? []).map((account) => [account.id, { ...account }]));
  const operations = new Map<string, AppliedOperation>();
  const effects: AppliedOperation[] = [];
  let nextFault: Fault | null = null;
  let held: { key: string; request: RefundRequest; ifMatch: string | null; req: IncomingMessage; res: ServerResponse }[] = [];
  let server: Server | null = null;
  let url = '';

  /** The refund itself. Synchronous from lookup to write, so two requests with one key cannot both apply. */
  function refund(key: string, request: RefundRequest, ifMatch: string | null): Answer & { applied?: AppliedOperation } {
    const previous = operations.get(key);
    if (previous) {
      // Compared before anything else: a repeat must get the stored answer even though the account has
      // changed since (by this very refund), or a retry would look like a conflict.
      if (canonicalJson(previous.request) !== canonicalJson(request)) {
        return { status: 409, body: { error: 'IDEMPOTENCY_KEY_REUSED', message: 'This key was used for another request.' } };
      }
      return { status: 201, body: previous.result, headers: { 'idempotent-replayed': 'true' } };
    }
    const account = accounts.get(request.accountId);
    if (!account) return { status: 404, body: { error: 'ACCOUNT_NOT_FOUND', applied: false } };
    if (ifMatch !== null && ifMatch !== fingerprintOf(account)) {
      return { status: 412, body: { error: 'FINGERPRINT_MISMATCH', applied: false, fingerprint: fingerprintOf(account) } };
    }
    if (request.amount > account.balance) {
      return { status: 422, body: { error: 'INSUFFICIENT_BALANCE', applied: false, balance: account.balance } };
    }
    account.balance -= request.amount;
    const applied: AppliedOperation = {
      key,
      request,
      appliedAt: new Date().toISOString(),
      result: {
        refundId: `rf_${randomUUID()}`,
        accountId: account.id,
        amount: request.amount,
        balanceAfter: account.balance,
        operationId: key,
      },
    };
    operations.set(key, applied);
    effects.push(applied);
    return { status: 201, body: applied.result, applied };
  }

  function send(res: ServerResponse, answer: Answer): void {
    if (res.destroyed || res.writableEnded) return;
    // One request per connection: a stopped service then refuses the very next request, as a crashed
    // one would, instead of a pooled socket failing in some other way.
    res.writeHead(answer.status, { 'content-type': 'application/json', connection: 'close', ...answer.headers });
    res.end(JSON.stringify(answer.body));
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = new URL(req.url ?? '/', 'http://remote').pathname;
    const body = await readBody(req);
    const segments = path.split('/').filter(Boolean).map(decodeURIComponent);

    if (req.method === 'GET' && segments[0] === 'accounts' && segments.length === 2) {
      const account = accounts.get(segments[1] as string) ?? null;
      return send(res, { status: account ? 200 : 404, body: { account, fingerprint: fingerprintOf(account) } });
    }
    if (req.method === 'PUT' && segments[0] === 'accounts' && segments.length === 2) {
      const balance = (body as { balance?: unknown } | null)?.balance;
      if (!Number.isSafeInteger(balance) || (balance as number) < 0) return send(res, { status: 400, body: { error: 'INVALID_BALANCE' } });
      const account = { id: segments[1] as string, balance: balance as number };
      accounts.set(account.id, account);
      return send(res, { status: 200, body: { account, fingerprint: fingerprintOf(account) } });
    }
    if (req.method === 'GET' && segments[0] === 'operations' && segments.length === 2) {
      const operation = operations.get(segments[1] as string);
      return send(
        res,
        operation ? { status: 200, body: { applied: true, ...operation } } : { status: 404, body: { key: segments[1], applied: false } },
      );
    }
    if (req.method === 'POST' && path === '/_faults') {
      const fault = (body as { fault?: unknown } | null)?.fault;
      if (!FAULTS.includes(fault as Fault)) return send(res, { status: 400, body: { error: 'UNKNOWN_FAULT', faults: FAULTS } });
      nextFault = fault as Fault;
      return send(res, { status: 200, body: { armed: fault } });
    }
    if (req.method === 'POST' && path === '/refunds') {
      const key = req.headers['idempotency-key'];
      if (typeof key !== 'string' || key.length < 1 || key.length > 200) {
        return send(res, { status: 400, body: { error: 'IDEMPOTENCY_KEY_REQUIRED', applied: false } });
      }
      const { accountId, amount } = (body ?? {}) as Partial<RefundRequest>;
      if (typeof accountId !== 'string' || !Number.isSafeInteger(amount) || (amount as number) <= 0) {
        return send(res, { status: 400, body: { error: 'INVALID_REQUEST', applied: false } });
      }
      const request = { accountId, amount: amount as number };
      const ifMatch = typeof req.headers['if-match'] === 'string' ? req.headers['if-match'] : null;
      const fault = nextFault;
      nextFault = null;
      if (fault === 'fail-before-processing') return send(res, { status: 503, body: { error: 'UNAVAILABLE' } });
      if (fault === 'hold') {
        held.push({ key, request, ifMatch, req, res });
        return;
      }
      const answer = refund(key, request, ifMatch);
      if (fault === 'fail-after-applying') return send(res, { status: 500, body: { error: 'INTERNAL' } });
      if (fault === 'drop-response') {
        req.socket.destroy();
        return;
      }
      return send(res, answer);
    }
    send(res, { status: 404, body: { error: 'NOT_FOUND' } });
  }

  const service: RemoteService = {
    get url() {
      return url;
    },
    account: (id) => {
      const account = accounts.get(id);
      return account ? { ...account } : undefined;
    },
    setAccount: (account) => {
      accounts.set(account.id, { ...account });
    },
    failNext: (fault) => {
      nextFault = fault;
    },
    async releaseHeld() {
      const parked = held;
      held = [];
      return parked.map(({ key, request, ifMatch, res }) => {
        const answer = refund(key, request, ifMatch);
        send(res, answer);
        return { status: answer.status, body: answer.body, replayed: answer.headers?.['idempotent-replayed'] === 'true' };
      });
    },
    operations,
    effects,
    async start() {
      const listening = createServer((req, res) => {
        handle(req, res).catch((error: unknown) => {
          send(res, {
            status: error instanceof BodyError ? 400 : 500,
            body: { error: error instanceof BodyError ? error.message : 'INTERNAL' },
          });
        });
      });
      await new Promise<void>((resolve, reject) => {
        listening.once('error', reject);
        listening.listen(port, host, () => resolve());
      });
      server = listening;
      port = (listening.address() as AddressInfo).port;
      url = `http://${host}:${port}`;
      return url;
    },
    async stop() {
      const closing = server;
      server = null;
      if (!closing) return;
      await new Promise<void>((resolve) => {
        closing.close(() => resolve());
        closing.closeAllConnections();
      });
    },
  };
  return service;
}

/** Creates and starts a service; `stop()` it when done. */
export async function startRemoteService(options: { accounts?: Account[]; host?: string; port?: number } = {}): Promise<RemoteService> {
  const service = createRemoteService(options);
  await service.start();
  return service;
}

class BodyError extends Error {}

async function readBody(req: IncomingMessage): Promise<unknown> {
  let size = 0;
  const chunks: Buffer[] = [];
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new BodyError('BODY_TOO_LARGE');
    chunks.push(chunk as Buffer);
  }
  if (size === 0) return null;
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
  } catch {
    throw new BodyError('INVALID_JSON');
  }
}
