// Who may do what: the roles, the authenticated principal, and the one table of operations
// to the roles allowed to perform them. Every check in the API reads this table.

export const ROLES = {
  ADMIN: 'Administers categories and API keys. Does not by itself propose, review or execute.',
  PROPOSER: 'Puts proposals in the queue (an AI classifier, an agent).',
  REVIEWER: 'Claims items under a lease and decides them; never an item it proposed.',
  EXECUTOR: 'Carries out approved action proposals (or records that they were carried out by hand).',
  RECONCILER: 'Settles action proposals whose execution outcome is unknown (reconcileProposal); never one it proposed or executed.',
  VIEWER: 'Reads the queue, its history and its live streams.',
  SENSITIVE_READER:
    'Reads the sensitive parts of proposals (PROPOSAL_SENSITIVE_FIELDS) unmasked; everyone else, ADMIN included, sees "[masked]". Grants nothing else.',
} as const;

export type Role = keyof typeof ROLES;

export const ROLE_NAMES = Object.keys(ROLES) as Role[];

export function isRole(value: string): value is Role {
  return Object.hasOwn(ROLES, value);
}

/**
 * Names the server records as the actor of its own changes: `system` (lapsed leases and proposals, the
 * first-run key, a closed connection's release) and `cli` or `cli:<user>` (the command line, see
 * src/cli/database.ts). A credential claiming one would pass its changes off as the server's.
 */
const SERVER_NAMES = /^(system|cli(:.*)?)$/is;

/** Whether `name` is one of the server's own names, in any case or compatibility form ("ｓｙｓｔｅｍ" reads as "system"). */
export function isServerName(name: string): boolean {
  return SERVER_NAMES.test(name.normalize('NFKC'));
}

/** How a principal proved who it is. */
export type Credential = 'API_KEY' | 'JWT';

/** An authenticated caller. `name` is what the history records as holder, decider and actor. */
export interface Principal {
  name: string;
  roles: ReadonlySet<Role>;
  credential: Credential;
  /** The API key's id, for API keys: a revoked key ends the connections it opened. */
  keyId: number | null;
  /** When the credential stops being valid (a JWT's `exp`); null when it does not expire by itself. */
  expiresAt: Date | null;
}

/**
 * Every operation of the API and the roles that may perform it (any one suffices). Reading is open
 * to every role; each change belongs to the role whose job it is (least privilege: ADMIN administers
 * but does not review, REVIEWER reviews but does not propose).
 */
export const PERMISSIONS = {
  // Reads: any authenticated principal.
  readQueue: ['ADMIN', 'PROPOSER', 'REVIEWER', 'EXECUTOR', 'RECONCILER', 'VIEWER'],
  subscribeQueue: ['ADMIN', 'PROPOSER', 'REVIEWER', 'EXECUTOR', 'RECONCILER', 'VIEWER'],
  // Proposals.
  addItem: ['PROPOSER'],
  // Review.
  claimItem: ['REVIEWER'],
  renewLease: ['REVIEWER'],
  releaseLease: ['REVIEWER'],
  decideItem: ['REVIEWER'],
  subscribeLease: ['REVIEWER'],
  // Action proposals (seed B).
  submitProposal: ['PROPOSER'],
  // Also principals named for a system in TARGET_STATE_REPORTERS; per system, see src/domain/proposal-rules.ts.
  reportTargetState: ['EXECUTOR'],
  cancelProposal: ['PROPOSER', 'ADMIN'],
  reviewProposal: ['REVIEWER'],
  renewProposalLease: ['REVIEWER', 'EXECUTOR'],
  executeProposal: ['EXECUTOR'],
  reconcileProposal: ['RECONCILER'],
  // Stopping is the safe direction: anyone who works the queue (not a PROPOSER, who could stall others' work)
  // may hold or escalate. Restarting is not: only an ADMIN resumes (docs/proposals.md, "Holds and escalation").
  holdProposal: ['REVIEWER', 'EXECUTOR', 'RECONCILER', 'ADMIN'],
  resumeProposal: ['ADMIN'],
  escalateProposal: ['REVIEWER', 'EXECUTOR', 'RECONCILER', 'ADMIN'],
  assignProposal: ['REVIEWER', 'ADMIN'],
  // Administration.
  manageCategories: ['ADMIN'],
  manageApiKeys: ['ADMIN'],
  readWebhookDeliveries: ['ADMIN'],
  // Personal data: PROPOSAL_SENSITIVE_FIELDS unmasked (not implied by ADMIN: least privilege).
  readSensitive: ['SENSITIVE_READER'],
} as const satisfies Record<string, readonly Role[]>;

export type Permission = keyof typeof PERMISSIONS;

export function can(principal: Pick<Principal, 'roles'>, permission: Permission): boolean {
  return PERMISSIONS[permission].some((role) => principal.roles.has(role));
}

/** Roles are stored as a sorted, comma-separated list: one spelling per set. */
export function formatRoles(roles: Iterable<Role>): string {
  return [...new Set(roles)].sort().join(',');
}

export function parseRoles(stored: string): Set<Role> {
  return new Set(stored.split(',').filter(isRole));
}
