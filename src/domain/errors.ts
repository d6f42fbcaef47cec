// Coded domain errors: the expected failures of every operation, named as in seed A.

/**
 * Every expected failure has one of these codes. The first group keeps seed A's
 * names and meanings; the rest cover what seed A had no operation for.
 */
export const ERROR_CODES = {
  INVALID_TEXT: 'Text input is empty, too long, padded with whitespace or contains control characters.',
  INVALID_TOKEN: 'The lease token is not 20–200 characters of A–Z, a–z, 0–9, "-" or "_".',
  UNKNOWN_CATEGORY: 'The category is not an allowed category.',
  DUPLICATE_ITEM: 'An item with this (batchId, recordId) already exists.',
  DUPLICATE_CATEGORY: 'The category already exists, or is listed twice.',
  CLAIM_NOT_FOUND: 'No pending item holds this token: never issued, released, decided, or replaced by a re-claim.',
  CLAIM_EXPIRED: 'The token is still recorded but its lease has lapsed.',
  CATEGORY_REQUIRED: 'A CORRECTED decision needs a category.',
  UNEXPECTED_CATEGORY: 'ACCEPTED and REJECTED decisions take no category.',
  CATEGORY_UNCHANGED: 'A CORRECTED decision must name a category different from the proposal.',
  ITEM_NOT_FOUND: 'No item has this id or (batchId, recordId).',
  CLAIM_CONFLICT: 'The item was claimed by someone else while this claim ran.',
  DECISION_CONFLICT: 'The item changed while this decision ran.',
  LEASE_OUT_OF_RANGE: 'leaseSeconds must be a whole number from 30 to 3600.',
  CATEGORY_RETIRED: 'The category is retired: it stays on old items but cannot be used again.',
  CATEGORY_NOT_FOUND: 'No category has this name.',
  TOO_MANY_ITEMS: 'A single call may add at most 500 items.',
  INVALID_ARGUMENT: 'An argument is outside its documented range.',
  UNAUTHENTICATED: 'No valid credential: send `Authorization: Bearer <API key or JWT>` (WebSocket: connectionParams.authorization).',
  FORBIDDEN: 'The principal lacks a role this operation needs.',
  NOT_LEASE_HOLDER: 'The lease is held by another principal: only its holder may renew, release or decide it.',
  SELF_REVIEW: 'A principal may not review an item it proposed.',
  API_KEY_NOT_FOUND: 'No API key has this id.',
  API_KEY_REVOKED: 'The API key is already revoked.',
  INVALID_ROLE: 'The roles must be a non-empty list of role names (the Role enum: ADMIN, PROPOSER, REVIEWER, EXECUTOR, RECONCILER, …).',
  PRINCIPAL_NAME_TAKEN:
    'Another API key already acts as a principal of this name: say it is the same principal (samePrincipal), or choose another name.',
  RESERVED_NAME:
    'The server records its own changes under this name (system, cli, cli:<user>): no principal may take it; choose another name.',
  RATE_LIMITED: 'Too many changes from this principal; retry after the time given.',
  PROPOSAL_NOT_FOUND: 'No action proposal has this id.',
  PROPOSAL_CONFLICT: 'A proposal with this (batchId, recordId, revision) exists with different content.',
  PROPOSAL_STATE_CONFLICT: 'The proposal’s current state does not allow this operation.',
  REVISION_MISMATCH: 'The revision (or fingerprint) named is not the one under review.',
  PREVIOUS_REVISION_INVALID:
    'A new revision must follow the previous one, which must have ended in CHANGES_REQUESTED, STALE, EXPIRED or FAILED.',
  SELF_APPROVAL: 'A proposer may not approve, review or execute its own proposal.',
  ALREADY_APPROVED: 'This principal has already approved this revision; approvals must come from distinct reviewers.',
  EXECUTOR_IS_APPROVER: 'The risk level’s policy requires the executor to differ from the approvers.',
  NOT_PROPOSER: 'Only the proposer (or an admin) may do this.',
  DEADLINE_PASSED: 'The proposal’s deadline has passed.',
  ATTEMPT_IN_PROGRESS: 'An attempt is already running under this lease; report its result before starting another.',
  ATTEMPT_NOT_STARTED: 'Start an execution attempt (with the current fingerprint) before reporting its result.',
  INVALID_JSON: 'The value is not valid JSON of the expected shape, or is too large.',
  RISK_BELOW_MINIMUM:
    'The risk level is below the floor configured for the action (PROPOSAL_ACTIONS) or below the previous revision’s risk level.',
  SELF_RECONCILIATION: 'A reconciler may not reconcile a proposal it proposed or executed.',
  NOT_TARGET_STATE_REPORTER:
    'This principal may not report this target system’s state (TARGET_STATE_REPORTERS names who may; EXECUTORs for systems not named).',
  STALE_FINGERPRINT:
    'The fingerprint given is not the one the server last received for this target (reportTargetState or an execution’s report): read the target again.',
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

/** An expected, user-facing failure. `field` names the input that broke the rule. */
export class DomainError extends Error {
  readonly code: ErrorCode;
  readonly field: string | null;

  constructor(code: ErrorCode, message: string, field: string | null = null) {
    super(message);
    this.name = 'DomainError';
    this.code = code;
    this.field = field;
  }
}
