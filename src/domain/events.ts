// The event catalogue: every state change the history records, with its details shape.

export const EVENT_TYPES = {
  CATEGORY_ADDED: 'A category became available for new items.',
  CATEGORY_RETIRED: 'A category stopped being available for new items; old items keep it.',
  ITEM_ADDED: 'A review item entered the queue.',
  LEASE_CLAIMED: 'A reviewer took a lease on an item (possibly replacing a lapsed lease).',
  LEASE_RENEWED: "The holder reset the lease's expiry to now + leaseSeconds.",
  LEASE_RELEASED: 'The holder gave the item back without a decision (or their connection closed, for a connection-bound lease).',
  LEASE_EXPIRED:
    'A lease lapsed without renewal; recorded once per lease, when it happens or at the latest when the item is claimed again.',
  ITEM_DECIDED: 'The holder recorded a decision; the lease ended with it.',
  API_KEY_CREATED: 'An administrator (or the first start of a new database) made an API key; details name it, never the key.',
  API_KEY_REVOKED: 'An administrator revoked an API key; connections it opened are closed.',
  PROPOSAL_SUBMITTED: 'A proposer submitted an action proposal (or a new revision of one).',
  PROPOSAL_LEASE_CLAIMED: 'A reviewer took the review lease on a proposal.',
  PROPOSAL_LEASE_RENEWED: 'The holder of a proposal’s review or execution lease renewed it.',
  PROPOSAL_LEASE_RELEASED: 'The holder gave a proposal back undecided.',
  PROPOSAL_LEASE_EXPIRED: 'A proposal’s review lease lapsed (recorded once).',
  PROPOSAL_APPROVAL_RECORDED: 'One reviewer approved the revision; more may be required by the risk level’s policy.',
  PROPOSAL_APPROVED:
    'Enough distinct reviewers approved, or at submission a policy with approvers: 0 did (actor system, details.policy): the proposal may be executed until the approval expires.',
  PROPOSAL_APPROVAL_LAPSED:
    'An approval given while the proposal waited for more grew older than the approval window: it no longer counts, and is never reused (its approver may approve again).',
  PROPOSAL_REJECTED: 'A reviewer rejected the proposal, with a reason.',
  PROPOSAL_CHANGES_REQUESTED: 'A reviewer asked for a new revision, with a reason.',
  PROPOSAL_CANCELLED: 'The proposer or an admin withdrew the proposal; approvals are void.',
  PROPOSAL_EXPIRED: 'The deadline or the approval’s validity passed before execution; approvals are void.',
  PROPOSAL_STALE: 'The target’s fingerprint changed; approvals are void and nothing runs.',
  PROPOSAL_REVIEWED_AFTER:
    'An approver reviewed a proposal a policy approved at submission (approvers: 0) after it was executed: details name the reviewer, the verdict (CONFIRMED or PROBLEM), the comment and the policy.',
  TARGET_STATE_REPORTED:
    'An executor, or a principal TARGET_STATE_REPORTERS names for the system, reported a target’s current fingerprint.',
  EXECUTION_CLAIMED: 'An executor took an approved proposal under an execution lease, with its operation id.',
  EXECUTION_ATTEMPT_STARTED: 'The executor checked the fingerprint and started an attempt.',
  EXECUTION_SUCCEEDED: 'The executor reported that the effect took place.',
  EXECUTION_RETURNED: 'The attempt failed before anything was sent: back to APPROVED (or EXPIRED if no longer valid).',
  EXECUTION_FAILED: 'The remote system refused the action without effect.',
  EXECUTION_OUTCOME_UNKNOWN:
    'The effect may or may not have happened (failure after sending, lost response, or the execution lease lapsed).',
  PROPOSAL_RECONCILED: 'An admin settled an unknown outcome: executed (with evidence) or not executed.',
  MANUAL_EXECUTION_RECORDED: 'An executor recorded that the action was carried out by hand.',
  PROPOSAL_HELD:
    'Someone allowed to (holdProposal) stopped a PENDING or APPROVED proposal, with a reason: ON_HOLD; details say where it was and whether a review lease ended with the hold.',
  PROPOSAL_RESUMED:
    'An ADMIN resumed a held proposal, with a reason: back to where it was held from, or EXPIRED (then PROPOSAL_EXPIRED follows) when that no longer holds.',
  PROPOSAL_ESCALATED:
    'A proposal was escalated to a role or a principal, with a reason: by hand (escalateProposal) or by "system" (PROPOSAL_ESCALATION: pending too long, outcome unknown too long; once each).',
  PROPOSAL_ASSIGNED: 'Someone named who should look at a proposal (assignProposal), or cleared it; not a lease.',
  OPERATION_REFUSED:
    'An authenticated principal attempted a change and was refused (missing role, not the holder, self-review, or a broken rule); details say which operation and why. Past 20 refusals in a minute, one event sums up the rest: details.count, windowStart and windowEnd.',
} as const;

export type EventType = keyof typeof EVENT_TYPES;

/** Type-specific details stored with each event. Never contains a lease token. */
export type EventDetails = Record<string, string | number | boolean | null>;

/**
 * An event's details as every reader is shown them. API key events written before the history stopped
 * recording it carry the key's listed prefix (`lhk_` and 8 characters of its secret). The history is
 * append-only, so those rows stay as written and the prefix is left out here, where details are read:
 * the field itself, and any value that quotes a key.
 */
export function shownDetails(type: string, details: Record<string, unknown>): Record<string, unknown> {
  if (!type.startsWith('API_KEY_')) return details;
  return Object.fromEntries(
    Object.entries(details).filter(([field, value]) => field !== 'prefix' && !(typeof value === 'string' && value.includes('lhk_'))),
  );
}
