// The reviewers' and proposers' HTTP side: each operation goes to a random running server, is retried on another
// (or the restarted one) when its answer is lost to a kill, and only an answer with its Payload is logged as
// acknowledged. Anything a client should never see (5xx, GraphQL errors such as SQLITE_BUSY, timeouts) is a problem.
import { hashLeaseToken } from '../../src/domain/lease.js';
import type { KeyHolder } from '../support/process.js';
import type { Cluster } from './cluster.js';
import type { Decision, Ledger, Op, Refusal } from './ledger.js';
import { sleep } from './settings.js';

const CLAIM = `mutation ($leaseSeconds: Int!) {
  claimItem(input: { leaseSeconds: $leaseSeconds }) {
    __typename
    ... on ClaimItemPayload { claimed item { batchId recordId leaseNumber version } lease { token holder expiresAt } }
    ... on UserError { code message }
  }
}`;
const RENEW = `mutation ($token: String!, $leaseSeconds: Int!) {
  renewLease(input: { token: $token, leaseSeconds: $leaseSeconds }) {
    __typename
    ... on RenewLeasePayload { item { batchId recordId leaseNumber version leaseExpiresAt } }
    ... on UserError { code message }
  }
}`;
const RELEASE = `mutation ($token: String!) {
  releaseLease(input: { token: $token }) {
    __typename
    ... on ReleaseLeasePayload { item { batchId recordId leaseNumber version claimState } }
    ... on UserError { code message }
  }
}`;
const DECIDE = `mutation ($token: String!, $decision: Decision!, $category: String) {
  decideItem(input: { token: $token, decision: $decision, category: $category }) {
    __typename
    ... on DecideItemPayload { item { batchId recordId leaseNumber version status finalCategory reviewedBy } }
    ... on UserError { code message }
  }
}`;
const ADD_ITEMS = `mutation ($items: [AddItemInput!]!) {
  addItems(input: { items: $items }) {
    __typename
    ... on AddItemsPayload { addedCount refusedCount entries { index item { batchId recordId } error { code message } } }
    ... on UserError { code message }
  }
}`;

/** A lease as its holder knows it. */
export interface Held {
  holder: KeyHolder;
  batchId: string;
  recordId: string;
  leaseNumber: number;
  token: string;
  /** Epoch ms, from the latest answer (claim or renewal). */
  expiresAt: number;
  /** A release or decision on this token lost its answer: it may have been used up. */
  tainted: boolean;
}

type Answer =
  | { kind: 'payload'; payload: Record<string, unknown> }
  | { kind: 'user-error'; code: string; message: string }
  /** Recorded as a problem already. */
  | { kind: 'failed' };

interface ItemFields {
  batchId: string;
  recordId: string;
  leaseNumber: number;
  version: number;
  leaseExpiresAt?: string | null;
  status?: string;
  finalCategory?: string | null;
  reviewedBy?: string | null;
}

/** A request may wait this long for a busy database (the server's busy timeout is 10 s) before it counts as hung. */
const REQUEST_TIMEOUT_MS = 30_000;
/** With no server answering for this long the client gives up and reports it. */
const GIVE_UP_MS = 120_000;

export class HttpClients {
  constructor(
    private readonly cluster: Cluster,
    private readonly ledger: Ledger,
    private readonly random: () => number,
  ) {}

  /**
   * Sends until some server answers. `lost` describes the attempt for the ledger if its answer is lost. Returns the
   * answer and how many attempts were lost before it.
   */
  private async send(
    caller: KeyHolder,
    op: Op,
    field: string,
    query: string,
    variables: Record<string, unknown>,
    lost: { batchId?: string; recordId?: string; leaseNumber?: number } = {},
  ): Promise<{ answer: Answer; lostAttempts: number; answeredAt: number }> {
    const begun = Date.now();
    let lostAttempts = 0;
    for (;;) {
      if (Date.now() - begun > GIVE_UP_MS) {
        this.ledger.problem(`${op} by ${caller.name}: no server answered for ${GIVE_UP_MS / 1000} s`);
        return { answer: { kind: 'failed' }, lostAttempts, answeredAt: Date.now() };
      }
      const slot = this.cluster.pick(this.random);
      if (!slot) {
        await sleep(25);
        continue;
      }
      const target = slot.process;
      let status: number;
      let text: string;
      try {
        const response = await fetch(`${slot.url}/graphql`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json', ...caller.headers },
          body: JSON.stringify({ query, variables }),
          signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
        });
        status = response.status;
        text = await response.text();
      } catch (error) {
        // No answer: the server was killed before or while answering. A hung request, or a connection a running
        // server dropped, is a problem as well.
        if ((error as Error).name === 'TimeoutError') {
          this.ledger.problem(`${op} by ${caller.name} on port ${slot.port}: no answer within ${REQUEST_TIMEOUT_MS / 1000} s`);
        } else if (target && !this.cluster.wasKilled(target)) {
          this.ledger.problem(
            `${op} by ${caller.name} on port ${slot.port}: no answer from a server nobody killed (${String((error as Error).cause ?? error)})`,
          );
        }
        lostAttempts += 1;
        this.ledger.lost.push({ op, via: 'http', actor: caller.name, ...lost });
        this.ledger.count(`http ${op}: answer lost`);
        await sleep(10 + this.random() * 40);
        continue;
      }
      const answeredAt = Date.now();
      let body: { data?: Record<string, unknown> | null; errors?: unknown[] };
      try {
        body = JSON.parse(text) as typeof body;
      } catch {
        this.ledger.problem(`${op} by ${caller.name}: HTTP ${status}, not JSON: ${text.slice(0, 300)}`);
        return { answer: { kind: 'failed' }, lostAttempts, answeredAt };
      }
      if (status !== 200 || body.errors !== undefined || !body.data) {
        this.ledger.problem(`${op} by ${caller.name} on port ${slot.port}: HTTP ${status} ${text.slice(0, 500)}`);
        return { answer: { kind: 'failed' }, lostAttempts, answeredAt };
      }
      const result = body.data[field] as Record<string, unknown>;
      if (result.__typename === 'UserError') {
        return { answer: { kind: 'user-error', code: String(result.code), message: String(result.message) }, lostAttempts, answeredAt };
      }
      return { answer: { kind: 'payload', payload: result }, lostAttempts, answeredAt };
    }
  }

  private refuse(op: Op, actor: string, code: string, excuse: Refusal['excuse'], detail: string): void {
    this.ledger.refusals.push({ op, via: 'http', code, actor, excuse, detail });
    this.ledger.count(`http ${op}: refused ${code}`);
  }

  /** Claims the first claimable item; null when nothing is claimable (or the claim could not be made). */
  async claim(reviewer: KeyHolder, leaseSeconds: number): Promise<Held | null> {
    const { answer } = await this.send(reviewer, 'claim', 'claimItem', CLAIM, { leaseSeconds });
    if (answer.kind === 'failed') return null;
    if (answer.kind === 'user-error') {
      this.refuse('claim', reviewer.name, answer.code, null, answer.message);
      return null;
    }
    if (!answer.payload.claimed) {
      this.ledger.count('http claim: nothing claimable');
      return null;
    }
    const item = answer.payload.item as ItemFields;
    const lease = answer.payload.lease as { token: string; holder: string; expiresAt: string };
    if (lease.holder !== reviewer.name) this.ledger.problem(`claim by ${reviewer.name} answered holder ${lease.holder}`);
    const expiresAt = Date.parse(lease.expiresAt);
    this.ledger.ack({
      op: 'claim',
      via: 'http',
      actor: reviewer.name,
      batchId: item.batchId,
      recordId: item.recordId,
      leaseNumber: item.leaseNumber,
      version: item.version,
      tokenHash: hashLeaseToken(lease.token),
      expiresAt,
      at: Date.now(),
    });
    this.ledger.count('http claim: acknowledged');
    return {
      holder: reviewer,
      batchId: item.batchId,
      recordId: item.recordId,
      leaseNumber: item.leaseNumber,
      token: lease.token,
      expiresAt,
      tainted: false,
    };
  }

  /**
   * Why a refusal of an operation on `held` may be right: its token may be used up (an earlier answer was lost), or
   * the lease had lapsed by the time the answer came (the server decides at a moment before its answer; same clock).
   */
  private excuse(held: Held, answeredAt: number, late: boolean): Refusal['excuse'] {
    if (late) return 'late';
    if (held.tainted) return 'retry-after-lost-answer';
    return answeredAt >= held.expiresAt ? 'lease-lapsed' : null;
  }

  private where(held: Held) {
    return { batchId: held.batchId, recordId: held.recordId, leaseNumber: held.leaseNumber };
  }

  async renew(held: Held, leaseSeconds: number): Promise<boolean> {
    const { answer, answeredAt } = await this.send(
      held.holder,
      'renew',
      'renewLease',
      RENEW,
      { token: held.token, leaseSeconds },
      this.where(held),
    );
    if (answer.kind === 'failed') return false;
    if (answer.kind === 'user-error') {
      this.refuse('renew', held.holder.name, answer.code, this.excuse(held, answeredAt, false), JSON.stringify(this.where(held)));
      return false;
    }
    const item = answer.payload.item as ItemFields;
    held.expiresAt = Date.parse(item.leaseExpiresAt as string);
    this.ledger.ack({
      op: 'renew',
      via: 'http',
      actor: held.holder.name,
      ...this.where(held),
      version: item.version,
      expiresAt: held.expiresAt,
      at: Date.now(),
    });
    this.ledger.count('http renew: acknowledged');
    return true;
  }

  async release(held: Held): Promise<void> {
    const { answer, lostAttempts, answeredAt } = await this.send(
      held.holder,
      'release',
      'releaseLease',
      RELEASE,
      { token: held.token },
      this.where(held),
    );
    if (lostAttempts > 0) held.tainted = true;
    if (answer.kind === 'failed') return;
    if (answer.kind === 'user-error') {
      this.refuse('release', held.holder.name, answer.code, this.excuse(held, answeredAt, false), JSON.stringify(this.where(held)));
      return;
    }
    const item = answer.payload.item as ItemFields;
    this.ledger.ack({ op: 'release', via: 'http', actor: held.holder.name, ...this.where(held), version: item.version, at: Date.now() });
    this.ledger.count('http release: acknowledged');
  }

  /** Decides; `late` marks a reviewer who waited past the lease on purpose (a refusal is then the right answer). */
  async decide(held: Held, decision: Decision, late = false): Promise<void> {
    const category = decision === 'CORRECTED' ? 'gamma' : null;
    const { answer, lostAttempts, answeredAt } = await this.send(
      held.holder,
      'decide',
      'decideItem',
      DECIDE,
      { token: held.token, decision, category },
      this.where(held),
    );
    if (lostAttempts > 0) held.tainted = true;
    if (answer.kind === 'failed') return;
    if (answer.kind === 'user-error') {
      this.refuse('decide', held.holder.name, answer.code, this.excuse(held, answeredAt, late), JSON.stringify(this.where(held)));
      return;
    }
    const item = answer.payload.item as ItemFields;
    if (late)
      this.ledger.problem(`a decision on a lapsed lease was accepted: ${JSON.stringify(item)} (lease expired at ${held.expiresAt})`);
    if (item.status !== decision || item.reviewedBy !== held.holder.name || item.recordId !== held.recordId) {
      this.ledger.problem(`decide by ${held.holder.name} on ${held.recordId} answered ${JSON.stringify(item)}`);
    }
    this.ledger.ack({
      op: 'decide',
      via: 'http',
      actor: held.holder.name,
      ...this.where(held),
      version: item.version,
      decision,
      finalCategory: item.finalCategory ?? null,
      at: Date.now(),
    });
    this.ledger.count(`http decide ${decision}: acknowledged`);
  }

  /** addItems (at most 500); returns how many this call's answer says were added. */
  async addItems(
    proposer: KeyHolder,
    items: readonly { batchId: string; recordId: string; proposedCategory: string; reason: string }[],
  ): Promise<number> {
    const { answer, lostAttempts } = await this.send(proposer, 'add', 'addItems', ADD_ITEMS, { items });
    if (answer.kind === 'failed') return 0;
    if (answer.kind === 'user-error') {
      this.refuse('add', proposer.name, answer.code, null, answer.message);
      return 0;
    }
    const entries = answer.payload.entries as {
      index: number;
      item: { batchId: string; recordId: string } | null;
      error: { code: string } | null;
    }[];
    let added = 0;
    for (const entry of entries) {
      if (entry.item) {
        added += 1;
        this.ledger.ack({
          op: 'add',
          via: 'http',
          actor: proposer.name,
          batchId: entry.item.batchId,
          recordId: entry.item.recordId,
          at: Date.now(),
        });
      } else {
        // A retry after a lost answer finds the items the lost attempt committed.
        const code = entry.error?.code ?? 'NONE';
        const excuse = code === 'DUPLICATE_ITEM' && lostAttempts > 0 ? 'duplicate-after-lost-answer' : null;
        this.refuse('add', proposer.name, code, excuse, JSON.stringify(items[entry.index]));
      }
    }
    this.ledger.count('http add: items acknowledged', added);
    return added;
  }
}
