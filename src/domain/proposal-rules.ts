// Action proposals, least privilege: the configured floor of risk per action (PROPOSAL_ACTIONS) and who
// may report a target system's state (TARGET_STATE_REPORTERS). Pure rules; the services apply them.
import { can, PERMISSIONS, type Permission, type Principal, type Role } from './access.js';
import { RISK_LEVELS, type RiskLevel } from './proposal.js';

/**
 * PROPOSAL_ACTIONS: per action name, the lowest risk level a proposal of it may be submitted with, and how many
 * approvers it needs per risk level where that differs from APPROVAL_POLICIES (0: approved at submission and
 * reviewed after execution; never for HIGH or CRITICAL, see domain/auto-execution.ts).
 */
export type ProposalActions = Readonly<
  Record<string, { minimumRisk?: RiskLevel; approvers?: Readonly<Partial<Record<RiskLevel, number>>> }>
>;

/** TARGET_STATE_REPORTERS: per target system, the principals (by name) that alone may report its state. */
export type TargetStateReporters = Readonly<Record<string, readonly string[]>>;

/** Whether `risk` is lower than `floor` (LOW < MEDIUM < HIGH < CRITICAL). */
export function riskBelow(risk: RiskLevel, floor: RiskLevel): boolean {
  return RISK_LEVELS.indexOf(risk) < RISK_LEVELS.indexOf(floor);
}

/**
 * Whether a principal may report the state of `system`: for a system named in TARGET_STATE_REPORTERS only
 * the principals listed there; for any other, principals with the EXECUTOR role.
 */
export function mayReportTargetState(
  reporters: TargetStateReporters,
  principal: { name: string; roles: ReadonlySet<Role> },
  system: string,
): boolean {
  const listed = Object.hasOwn(reporters, system) ? reporters[system] : undefined;
  return listed ? listed.includes(principal.name) : principal.roles.has('EXECUTOR');
}

/** Whether the principal is named for any system in TARGET_STATE_REPORTERS (it may then call reportTargetState at all). */
export function isNamedReporter(reporters: TargetStateReporters, name: string): boolean {
  return Object.values(reporters).some((names) => names.includes(name));
}

/**
 * Whether the principal may use an operation needing `permission` at all: its roles, and for reportTargetState
 * also its name in TARGET_STATE_REPORTERS (which systems, the service decides). Every authorization check uses this.
 */
export function mayUse(principal: Pick<Principal, 'name' | 'roles'>, permission: Permission, rules: ProposalRules): boolean {
  if (can(principal, permission)) return true;
  return permission === 'reportTargetState' && isNamedReporter(rules.targetStateReporters, principal.name);
}

/** Who may use an operation needing `permission`, for refusals' messages. */
export function whoMayUse(permission: Permission | undefined): string {
  if (!permission) return '(none)';
  const roles = PERMISSIONS[permission].join(', ');
  return permission === 'reportTargetState' ? `${roles} (or a name in TARGET_STATE_REPORTERS)` : roles;
}

/** The least-privilege settings of the proposal workflow, from the configuration. */
export interface ProposalRules {
  actions: ProposalActions;
  targetStateReporters: TargetStateReporters;
}

/** No floors, and EXECUTORs report every system's state. */
export const DEFAULT_PROPOSAL_RULES: ProposalRules = { actions: {}, targetStateReporters: {} };
