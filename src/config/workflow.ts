// The proposal workflow's JSON settings: APPROVAL_POLICIES, PROPOSAL_ACTIONS, TARGET_STATE_REPORTERS,
// PROPOSAL_ESCALATION and PROPOSAL_SENSITIVE_FIELDS, each parsed into what the domain rules take.
import { z } from 'zod';
import { type EscalationPolicy, escalationTarget } from '../domain/escalation.js';
import { parseSensitivePaths, SensitivePathError, type SensitivePaths } from '../domain/masking.js';
import { DEFAULT_POLICIES, type Policies, RISK_LEVELS } from '../domain/proposal.js';
import { DEFAULT_PROPOSAL_RULES, type ProposalRules } from '../domain/proposal-rules.js';
import { ConfigError, jsonSetting } from './json-setting.js';

const policySchema = z.strictObject({
  // 0: approved at submission by this policy and reviewed after execution (LOW and MEDIUM only, below).
  approvers: z.number().int().min(0).max(10),
  validitySeconds: z
    .number()
    .int()
    .min(60)
    .max(30 * 24 * 3600),
  executorMustDifferFromApprovers: z.boolean(),
});
/** HIGH and CRITICAL proposals are always approved by people before they run (domain/auto-execution.ts). */
const ALWAYS_APPROVED = 'HIGH and CRITICAL always need at least one approver (approvers: 0, auto-execution, is for LOW and MEDIUM only)';
const policiesSchema = z
  .strictObject({
    LOW: policySchema,
    MEDIUM: policySchema,
    HIGH: policySchema.extend({ approvers: z.number().int().min(1, ALWAYS_APPROVED).max(10) }),
    CRITICAL: policySchema.extend({ approvers: z.number().int().min(1, ALWAYS_APPROVED).max(10) }),
  })
  .partial();

/** APPROVAL_POLICIES: JSON overriding some risk levels' policies, e.g. {"HIGH":{"approvers":3,…}}. */
export function approvalPolicies(text: string | undefined): Policies {
  if (text === undefined) return DEFAULT_POLICIES;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new ConfigError('Invalid configuration: APPROVAL_POLICIES must be JSON');
  }
  const parsed = policiesSchema.safeParse(json);
  if (!parsed.success) {
    throw new ConfigError(
      `Invalid configuration: APPROVAL_POLICIES: ${parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ')}`,
    );
  }
  return { ...DEFAULT_POLICIES, ...parsed.data };
}

const actionsSchema = z.record(
  z.string().min(1, 'an action name must not be empty').max(100, 'an action name is at most 100 characters'),
  z.strictObject({
    minimumRisk: z.enum(RISK_LEVELS).optional(),
    approvers: z
      .strictObject({
        LOW: z.number().int().min(0).max(10),
        MEDIUM: z.number().int().min(0).max(10),
        HIGH: z.number().int().min(1, ALWAYS_APPROVED).max(10),
        CRITICAL: z.number().int().min(1, ALWAYS_APPROVED).max(10),
      })
      .partial()
      .optional(),
  }),
);
const reportersSchema = z.record(
  z.string().min(1, 'a system name must not be empty').max(100, 'a system name is at most 100 characters'),
  z.array(z.string().min(1, 'a principal name must not be empty').max(200)).min(1, 'must name at least one principal'),
);

/**
 * PROPOSAL_ACTIONS (e.g. {"refund":{"minimumRisk":"HIGH"}}: the lowest risk a proposal of the action may be
 * submitted with) and TARGET_STATE_REPORTERS (e.g. {"billing":["billing-sync"]}: who alone may report a system's state).
 */
export function proposalRules(actions: string | undefined, reporters: string | undefined): ProposalRules {
  return {
    actions:
      actions === undefined || actions.trim() === ''
        ? DEFAULT_PROPOSAL_RULES.actions
        : jsonSetting(
            'PROPOSAL_ACTIONS',
            actions,
            actionsSchema,
            'an object of action → {"minimumRisk": LOW|MEDIUM|HIGH|CRITICAL, "approvers": {risk level → 0–10}}',
          ),
    targetStateReporters:
      reporters === undefined || reporters.trim() === ''
        ? DEFAULT_PROPOSAL_RULES.targetStateReporters
        : jsonSetting('TARGET_STATE_REPORTERS', reporters, reportersSchema, 'an object of target system → [principal names]'),
  };
}

const escalationSeconds = z
  .number()
  .int()
  .min(60, 'must be at least 60 seconds')
  .max(365 * 24 * 3600, 'must be at most a year')
  .nullable();
const escalationSchema = z
  .strictObject({
    pendingAfterSeconds: escalationSeconds.default(null),
    outcomeUnknownAfterSeconds: escalationSeconds.default(null),
    to: z
      .string()
      .min(1, 'must name a role or a principal')
      .max(100, 'must be at most 100 characters')
      .refine(
        isEscalationTarget,
        "must name a role or a principal: text without control characters or edge spaces, not the server's own name",
      ),
  })
  .refine((policy) => policy.pendingAfterSeconds !== null || policy.outcomeUnknownAfterSeconds !== null, {
    message: 'give pendingAfterSeconds, outcomeUnknownAfterSeconds or both',
  });

/** Whether `to` is what escalateProposal would accept, so the announcer never meets a target it refuses. */
function isEscalationTarget(to: string): boolean {
  try {
    escalationTarget(to);
    return true;
  } catch {
    return false;
  }
}

/** PROPOSAL_ESCALATION, e.g. {"pendingAfterSeconds":3600,"outcomeUnknownAfterSeconds":600,"to":"ADMIN"}; none when unset. */
export function escalationConfig(text: string | undefined): EscalationPolicy | null {
  if (text === undefined || text.trim() === '') return null;
  return jsonSetting(
    'PROPOSAL_ESCALATION',
    text,
    escalationSchema,
    'an object {"pendingAfterSeconds": seconds, "outcomeUnknownAfterSeconds": seconds, "to": role or principal}',
  );
}

/** PROPOSAL_SENSITIVE_FIELDS: a JSON array of paths into parameters/currentValue/proposedValue (src/domain/masking.ts). */
export function sensitiveFieldsConfig(text: string | undefined): SensitivePaths {
  try {
    return parseSensitivePaths(text);
  } catch (error) {
    if (error instanceof SensitivePathError) throw new ConfigError(`Invalid configuration: PROPOSAL_SENSITIVE_FIELDS: ${error.message}`);
    throw error;
  }
}
