// The review loop's writes as calls of the database's own functions, on PostgreSQL (migration
// 20261203020000_write_functions). An interactive transaction pays a round trip to the instance for
// every statement while it holds the write lock, and each of those waits for a turn of a busy event
// loop; one call of `leasehold_write` takes the lock, runs a whole group-commit batch of claims,
// renewals, releases and decisions, and commits, without the instance in between. The TypeScript
// forms (services/leases.ts, services/decisions.ts) stay the specification and SQLite's path; the
// answers below carry what the instance needs to give the same result and the same refusals.
import type { Clock } from '../domain/clock.js';
import { LONGEST_LEASE_MS } from '../domain/lease.js';
import type { TargetState } from '../generated/prisma/client.js';
import {
  type JsonApiKey,
  type JsonAttempt,
  type JsonCategory,
  type JsonDelivery,
  type JsonItem,
  type JsonProposal,
  utc,
} from './call-rows.js';

export {
  apiKeyFromJson,
  attemptFromJson,
  categoryFromJson,
  deliveryFromJson,
  itemFromJson,
  type JsonApiKey,
  type JsonAttempt,
  type JsonCategory,
  type JsonDelivery,
  type JsonItem,
  type JsonProposal,
  proposalFromJson,
} from './call-rows.js';

interface LeaseHolder {
  tokenHash: string;
  actor: string;
  authenticated: boolean;
}

/** One operation of a batch, as `leasehold_write` reads it (without its time: see stampCall). */
export type WriteCall =
  | {
      op: 'claim';
      leaseSeconds: number;
      tokenHash: string;
      holder: string;
      batchId: string | null;
      notAddedBy: string | null;
      overlongLimit: number;
    }
  | ({ op: 'renew'; leaseSeconds: number } & LeaseHolder)
  | ({ op: 'release'; reason: string | null } & LeaseHolder)
  | ({ op: 'decide'; decision: 'ACCEPTED' | 'CORRECTED' | 'REJECTED'; correction: string | null } & LeaseHolder)
  | { op: 'addItems'; actor: string; items: { batchId: string; recordId: string; proposedCategory: string; reason: string }[] }
  | { op: 'touchKey'; id: number; at: string }
  /** OPERATION_REFUSED rows of one principal; each `details` already JSON, as SQLite stores it. */
  | { op: 'recordRefusals'; actor: string; details: string[] }
  | { op: 'addCategories'; actor: string; names: string[] }
  | { op: 'retireCategory'; actor: string; name: string }
  /** Webhook deliveries (services/webhook-deliveries.ts); times as ISO 8601. */
  | { op: 'webhookEnqueue'; webhook: string; events: string[]; batch: number }
  | { op: 'webhookClaim'; webhooks: string[]; limit: number; claimMs: number }
  | {
      op: 'webhookRecord';
      id: number;
      claimedUntil: string;
      attempts: number;
      statusCode: number | null;
      error: string | null;
      outcome: 'DELIVERED' | 'FAILED' | 'RETRY';
      delayMs: number | null;
    }
  | { op: 'webhookRelease'; claims: { id: number; claimedUntil: string }[] }
  /** API keys (services/api-keys.ts): the secret stays with the instance; only its hash and shown prefix come. */
  | {
      op: 'keyCreate';
      actor: string;
      name: string;
      roles: string;
      keyHash: string;
      prefix: string;
      samePrincipal: boolean;
      /** The first start's key: made only on a database that has never had one. */
      onlyIfNone: boolean;
    }
  | { op: 'keyRevoke'; actor: string; id: number }
  | { op: 'recordLapses'; limit: number }
  | {
      op: 'proposalClaim';
      leaseSeconds: number;
      tokenHash: string;
      holder: string;
      /** Only these risk levels (null: any); not with `id`. */
      riskLevels: string[] | null;
      /** That proposal, or a refusal saying why not. */
      id: number | null;
    }
  | {
      op: 'executionClaim';
      leaseSeconds: number;
      tokenHash: string;
      holder: string;
      actions: string[] | null;
      targetSystems: string[] | null;
      /** The risk levels whose policy keeps a proposal's approvers from executing it. */
      separated: string[];
      /** The state CLAIM_EXECUTION takes an APPROVED proposal to. */
      to: string;
    }
  | ({
      op: 'proposalTurnDown';
      operation: 'REJECT' | 'REQUEST_CHANGES';
      reason: string;
      comment: string | null;
      /** Where the operation takes each state it is allowed from. */
      to: Partial<Record<string, string>>;
    } & LeaseHolder)
  | ({
      op: 'proposalApprove';
      revision: number;
      /** The fingerprint the reviewer saw, if it said. */
      fingerprint: string | null;
      comment: string | null;
      /** The approval window of each risk level's policy, in seconds. */
      validity: Record<string, number>;
      /** Where APPROVE takes a PENDING proposal with enough approvals, and with too few. */
      reached: string;
      short: string;
      /** The operation id the proposal gets if this approval approves it. */
      operationId: string;
    } & LeaseHolder)
  | { op: 'proposalCancel'; id: number; actor: string; isAdmin: boolean; reason: string; to: Partial<Record<string, string>> }
  | {
      op: 'proposalSubmit';
      actor: string;
      /** The validated submission (JSON values as their text, the deadline as ISO 8601). */
      proposal: Record<string, string | number | null>;
      /** Below the action's configured risk floor (a refusal after the checks that come before it). */
      belowFloor: boolean;
      /** The states after which the next revision may be submitted, and the risk levels from lowest. */
      revisable: string[];
      risks: string[];
      /** Approvers it needs; with none, the policy that approves it, where AUTO_APPROVE takes it, the window. */
      approvers: number;
      policy: string;
      autoApproved: string;
      validity: number;
      operationId: string;
    }
  | ({
      op: 'executionStart';
      fingerprint: string;
      correlationId: string | null;
      /** Where MARK_STALE takes each state, and FAIL_BEFORE_SEND with the approval no longer valid. */
      staleTo: Partial<Record<string, string>>;
      expireTo: Partial<Record<string, string>>;
    } & LeaseHolder)
  | ({
      op: 'executionReport';
      outcome: string;
      response: string | null;
      fingerprint: string | null;
      correlationId: string | null;
      /** Where the outcome's operation takes each state, by `valid|lapsed` approval and `same|changed` fingerprint. */
      to: Record<string, Partial<Record<string, string>>>;
      /** A reported fingerprint is remembered: the states it makes STALE when theirs differs, and where MARK_STALE takes them. */
      before: string[];
      staleTo: Partial<Record<string, string>>;
    } & LeaseHolder)
  | {
      op: 'targetReport';
      actor: string;
      targetSystem: string;
      targetId: string;
      fingerprint: string;
      before: string[];
      staleTo: Partial<Record<string, string>>;
    }
  | { op: 'proposalHold'; id: number; actor: string; reason: string; to: Partial<Record<string, string>> }
  | {
      op: 'proposalResume';
      id: number;
      actor: string;
      reason: string;
      /** Where RESUME takes each state, by `(held from)/(valid|lapsed)` (held from: '' when unknown). */
      to: Record<string, Partial<Record<string, string>>>;
    }
  | { op: 'proposalEscalate'; id: number; actor: string; reason: string; escalatedTo: string; toKind: string; live: string[] }
  | { op: 'proposalAssign'; id: number; actor: string; assignee: string | null; live: string[] }
  | {
      op: 'executionClaimManual';
      id: number;
      actor: string;
      reason: string;
      leaseSeconds: number;
      tokenHash: string;
      /** The risk levels whose policy keeps executors and approvers apart. */
      separated: string[];
      to: string;
    }
  | {
      op: 'executionRecordManual';
      id: number;
      actor: string;
      fingerprint: string;
      fingerprintAfter: string | null;
      evidence: string;
      reason: string;
      separated: string[];
      /** Where RECORD_MANUAL_EXECUTION takes each state, by `valid|lapsed` approval, `same|changed` fingerprint and `approved|never`. */
      to: Record<string, Partial<Record<string, string>>>;
      before: string[];
      staleTo: Partial<Record<string, string>>;
    }
  | {
      op: 'proposalReconcile';
      id: number;
      actor: string;
      authenticated: boolean;
      executed: boolean;
      evidence: string;
      fingerprint: string | null;
      /** Where the reconciliation takes each state, by `valid|lapsed` approval and `same|changed` fingerprint. */
      to: Record<string, Partial<Record<string, string>>>;
      before: string[];
      staleTo: Partial<Record<string, string>>;
    }
  | { op: 'proposalReviewAfter'; id: number; actor: string; verdict: string; comment: string | null }
  | {
      op: 'proposalDeadlines';
      limit: number;
      /** Where EXPIRE takes each state, and an execution lease's lapse (OUTCOME_UNKNOWN) takes EXECUTING. */
      expireTo: Partial<Record<string, string>>;
      unknownTo: string;
      /** The escalation policy (PROPOSAL_ESCALATION) with its target's kind, or none. */
      escalation: { pendingAfterSeconds: number | null; outcomeUnknownAfterSeconds: number | null; to: string; kind: string } | null;
    }
  | ({ op: 'proposalRenew'; leaseSeconds: number } & LeaseHolder)
  | ({ op: 'proposalRelease' } & LeaseHolder);

/** Why an item was not added (addItems), as the TypeScript form's DomainError codes. */
export type AddRefusal = 'UNKNOWN_CATEGORY' | 'CATEGORY_RETIRED' | 'DUPLICATE_ITEM';

/** What one operation of a batch answered. */
export interface CallAnswer {
  /** The time the operation was stamped with (the instance's, or lifted to the last recorded change). */
  at: string;
  /** The item after the change. */
  item?: JsonItem;
  /** claim: nothing is claimable. */
  none?: true;
  /** The fence failed: the item changed between the operation's read and its write (nothing written). */
  conflict?: true;
  /** The token's lease is not the caller's to use; `held` is the item holding the token, if any. */
  refused?: true;
  held?: JsonItem | null;
  /** decide: an authenticated caller decides an item it proposed. */
  selfReview?: true;
  /** decide: the corrected category cannot be chosen; what finalCategory needs to say why. */
  category?: { proposedCategory: string; exists: boolean; retired: boolean };
  /**
   * Proposal operations: the proposal after the change; when `refused`, the proposal as found (holding the
   * token, or the one named), null when there is none.
   */
  proposal?: JsonProposal | null;
  /** proposalClaim with an id, proposalApprove, or a manual claim or record, refused: the caller's approval of it stands. */
  approved?: boolean;
  /** proposalApprove, refused: the target's remembered state, whose fingerprint is not the proposal's. */
  remembered?: Omit<TargetState, 'reportedAt'> & { reportedAt: string };
  /** proposalDeadlines: how many proposals it changed. */
  changed?: number;
  /** proposalReconcile, refused: the caller executed it (claimed its execution, ran an attempt, recorded it by hand). */
  executor?: true;
  /** proposalSubmit: the same (batchId, recordId, revision) is stored (`proposal`); the instance compares content. */
  existing?: true;
  /** proposalSubmit, refused: the revision the submission follows (null: none), or that a first one has revisions. */
  previous?: JsonProposal | null;
  revisions?: boolean;
  /** executionStart: the attempt started; refused: the number of the attempt still open, if that is why. */
  attempt?: JsonAttempt;
  open?: number;
  /** executionReport, refused: no attempt was started. */
  notStarted?: true;
  /** targetReport: the proposals the fingerprint made STALE, in id order. */
  stale?: JsonProposal[];
  /** addItems: one outcome per item given, in order: the new item's id, or why it was not added. */
  addedIds?: (number | AddRefusal)[];
  /**
   * addItems: the first new item as stored (null when none was added); the others differ from it only in
   * what their input gives (id, batchId, recordId, proposedCategory, reason).
   */
  addedRow?: JsonItem | null;
  /** addCategories and retireCategory, refused: DUPLICATE_CATEGORY (with the first name `taken`), CATEGORY_NOT_FOUND, CATEGORY_RETIRED. */
  refusal?:
    | 'DUPLICATE_CATEGORY'
    | 'CATEGORY_NOT_FOUND'
    | 'CATEGORY_RETIRED'
    | 'PRINCIPAL_NAME_TAKEN'
    | 'API_KEY_NOT_FOUND'
    | 'API_KEY_REVOKED';
  /** keyCreate, refused: the keys already acting as the name, in id order. */
  sharing?: number[];
  /** keyCreate and keyRevoke: the key as stored. */
  key?: JsonApiKey;
  taken?: string | null;
  /** addCategories: the new categories, in the order given. */
  categories?: JsonCategory[];
  /** retireCategory: the category, retired. */
  retiredCategory?: JsonCategory;
  /** webhookEnqueue: the events it considered (a full batch: call again). */
  enqueued?: number;
  /** webhookRecord: the claim still held the delivery, so the result was recorded. */
  claimHeld?: boolean;
  /** webhookClaim: the deliveries claimed, soonest due first. */
  deliveries?: JsonDelivery[];
  /** recordLapses: how many lapses it recorded. */
  recorded?: number;
  /** The operation failed in the database; its statements were rolled back. */
  error?: { sqlstate: string; message: string };
}

/** What `leasehold_write` answers for a batch. */
export interface BatchAnswer {
  answers: CallAnswer[];
  /** The last recorded change's time after the batch, for the instance's clock floor. */
  lastEventAt: string | null;
  /** How long the batch waited for the write lock inside the database. */
  lockWaitMs: number;
}

export function targetStateFromJson(row: NonNullable<CallAnswer['remembered']>): TargetState {
  return { ...row, reportedAt: utc(row.reportedAt) };
}

/** The call with its time, read from `clock` as the batch is sent (as late as the instance can). */
export function stampCall(call: WriteCall, clock: Clock): Record<string, unknown> {
  const maxLiftMs = clock.maxLiftMs;
  return {
    ...call,
    now: clock.now().toISOString(),
    longestMs: LONGEST_LEASE_MS,
    lift: maxLiftMs !== undefined,
    ...(maxLiftMs !== undefined && Number.isFinite(maxLiftMs) ? { maxLiftMs } : {}),
  };
}

/** A failure inside the database function, with PostgreSQL's SQLSTATE as pg reports it. */
export class WriteCallError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'WriteCallError';
  }
}

/** The operation's answer, or what it failed with. */
export function answered(answer: CallAnswer): CallAnswer {
  if (answer.error) throw new WriteCallError(answer.error.sqlstate, answer.error.message);
  return answer;
}

/** The one statement a batch of calls is: pg sends it as a named prepared statement. */
export const WRITE_BATCH = 'SELECT leasehold_write($1::jsonb) AS "answer"';
/** The same in PG_WRITE_MODE=sharded: no global lock (see the migration sharded_writes_and_lapse_sweeps). */
export const WRITE_BATCH_SHARDED = 'SELECT leasehold_write($1::jsonb, TRUE) AS "answer"';
