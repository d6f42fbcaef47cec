// Automatic escalation of proposals nobody is moving (issue 17, item 5): PENDING ones older than a configured
// age and OUTCOME_UNKNOWN ones unreconciled for a configured time, escalated once each by the deadline
// announcer (PROPOSAL_ESCALATION). Pure: the configuration's shape, and to whom a proposal is escalated.
import { isRole, isServerName } from './access.js';
import { DomainError } from './errors.js';
import { validateText } from './validation.js';

/** PROPOSAL_ESCALATION, e.g. {"pendingAfterSeconds":3600,"outcomeUnknownAfterSeconds":600,"to":"ADMIN"}. */
export interface EscalationPolicy {
  /** A PENDING proposal this old (from its submission) is escalated, once; null: never by age. */
  pendingAfterSeconds: number | null;
  /** An OUTCOME_UNKNOWN proposal unreconciled this long is escalated, once each time it becomes unknown; null: never. */
  outcomeUnknownAfterSeconds: number | null;
  /** To whom: a role name (e.g. ADMIN, RECONCILER) or a principal's name. */
  to: string;
}

/** Principal names are at most this long (as in API keys). */
export const ESCALATION_TARGET_MAX = 100;

/** Whom `to` names: one of the roles, or a principal. Refuses an empty, ill-formed or overlong name. */
export function escalationTarget(to: string, field = 'to'): { to: string; kind: 'ROLE' | 'PRINCIPAL' } {
  const name = validateText(to, field, ESCALATION_TARGET_MAX);
  if (isServerName(name))
    throw new DomainError('INVALID_ARGUMENT', `${field} must name a role or a principal, not the server's own name.`, field);
  return { to: name, kind: isRole(name) ? 'ROLE' : 'PRINCIPAL' };
}
