// What the clients were told: every acknowledged operation, every attempt whose answer was lost, every refusal and
// every answer no client should ever get. The history checks compare the database with this.

export type Decision = 'ACCEPTED' | 'REJECTED' | 'CORRECTED';
export type Op = 'claim' | 'renew' | 'release' | 'decide' | 'add';
export type Via = 'http' | 'cli';

/** An operation acknowledged to a client: HTTP 200 with its Payload (not a UserError), or a CLI exit 0 with ok:true. */
export interface Ack {
  op: Op;
  via: Via;
  /** The principal (HTTP) or --reviewer / LEASEHOLD_ACTOR (CLI) the change is recorded under. */
  actor: string;
  batchId: string;
  recordId: string;
  /** The item's lease the operation concerns (HTTP answers carry it; the CLI's seed A output does not). */
  leaseNumber?: number;
  /** Item.version after the change (HTTP only). */
  version?: number;
  /** SHA-256 of the lease token the client holds (claims). */
  tokenHash?: string;
  /** The lease's expiry as the answer gave it, epoch ms (claims and renewals; whole seconds for the CLI). */
  expiresAt?: number;
  /** The lease's start in whole epoch seconds, as the CLI prints it. */
  claimedAtSecond?: number;
  decision?: Decision;
  finalCategory?: string | null;
  /** Client clock when the answer arrived. */
  at: number;
}

/** One attempt that got no answer (connection refused or cut by a kill): it may or may not have committed. */
export interface LostAttempt {
  op: Op;
  via: Via;
  actor: string;
  /** Known for operations on a held lease; unknown for claims and adds. */
  batchId?: string;
  recordId?: string;
  leaseNumber?: number;
}

export interface Refusal {
  op: Op;
  via: Via;
  code: string;
  actor: string;
  /** Why a refusal was acceptable here, or null when the client had every reason to expect success. */
  excuse: 'late' | 'retry-after-lost-answer' | 'lease-lapsed' | 'duplicate-after-lost-answer' | null;
  detail: string;
}

export class Ledger {
  readonly acks: Ack[] = [];
  readonly lost: LostAttempt[] = [];
  readonly refusals: Refusal[] = [];
  /** Answers no client may get: 5xx, GraphQL errors (SQLITE_BUSY, masked internal errors), timeouts, CLI failures. */
  readonly problems: string[] = [];
  /** Free-form counters for the summary (claimed:false answers, abandoned leases, …). */
  readonly counters = new Map<string, number>();

  count(name: string, by = 1): void {
    this.counters.set(name, (this.counters.get(name) ?? 0) + by);
  }

  ack(entry: Ack): void {
    this.acks.push(entry);
  }

  problem(text: string): void {
    this.problems.push(text);
  }
}
