// Rows as the database functions answer them (`to_jsonb`: times as UTC wall time without a zone), and their
// conversion to the Prisma types the services use. The calls themselves are in write-calls.ts.
import type { ApiKey, Category, ExecutionAttempt, Item, Proposal, WebhookDelivery } from '../generated/prisma/client.js';

/** An Item as `to_jsonb` writes the row: times as UTC wall time without a zone. */
export type JsonItem = Omit<Item, 'decidedAt' | 'createdAt' | 'claimedAt' | 'leaseExpiresAt'> & {
  decidedAt: string | null;
  createdAt: string;
  claimedAt: string | null;
  leaseExpiresAt: string | null;
};

/** A Category as `to_jsonb` writes the row (times as for JsonItem). */
export type JsonCategory = Omit<Category, 'createdAt' | 'retiredAt'> & { createdAt: string; retiredAt: string | null };

/** An ApiKey as `to_jsonb` writes the row (times as for JsonItem). */
export type JsonApiKey = {
  [K in keyof ApiKey]: ApiKey[K] extends Date ? string : ApiKey[K] extends Date | null ? string | null : ApiKey[K];
};

export function apiKeyFromJson(row: JsonApiKey): ApiKey {
  return {
    ...row,
    createdAt: utc(row.createdAt),
    lastUsedAt: utcOrNull(row.lastUsedAt),
    revokedAt: utcOrNull(row.revokedAt),
  };
}

/** A WebhookDelivery as `to_jsonb` writes the row (times as for JsonItem). */
export type JsonDelivery = {
  [K in keyof WebhookDelivery]: WebhookDelivery[K] extends Date
    ? string
    : WebhookDelivery[K] extends Date | null
      ? string | null
      : WebhookDelivery[K];
};

/** A Proposal as `to_jsonb` writes the row (times as for JsonItem). */
export type JsonProposal = {
  [K in keyof Proposal]: Proposal[K] extends Date ? string : Proposal[K] extends Date | null ? string | null : Proposal[K];
};

/** An ExecutionAttempt as `to_jsonb` writes the row (times as for JsonItem). */
export type JsonAttempt = Omit<ExecutionAttempt, 'startedAt' | 'finishedAt'> & { startedAt: string; finishedAt: string | null };

export const utc = (wallTime: string): Date => new Date(`${wallTime}Z`);
export const utcOrNull = (wallTime: string | null): Date | null => (wallTime === null ? null : utc(wallTime));

export function itemFromJson(row: JsonItem): Item {
  return {
    ...row,
    decidedAt: utcOrNull(row.decidedAt),
    createdAt: utc(row.createdAt),
    claimedAt: utcOrNull(row.claimedAt),
    leaseExpiresAt: utcOrNull(row.leaseExpiresAt),
  };
}

export function categoryFromJson(row: JsonCategory): Category {
  return { ...row, createdAt: utc(row.createdAt), retiredAt: utcOrNull(row.retiredAt) };
}

export function deliveryFromJson(row: JsonDelivery): WebhookDelivery {
  return {
    ...row,
    nextAttemptAt: utc(row.nextAttemptAt),
    claimedUntil: utcOrNull(row.claimedUntil),
    deliveredAt: utcOrNull(row.deliveredAt),
    createdAt: utc(row.createdAt),
  };
}

type ProposalTime = { [K in keyof Proposal]-?: Date extends NonNullable<Proposal[K]> ? K : never }[keyof Proposal];
/** Every time column of Proposal (the type makes a new one a compile error until it is named here). */
const PROPOSAL_TIMES = Object.keys({
  deadline: true,
  createdAt: true,
  approvedAt: true,
  approvalExpiresAt: true,
  claimedAt: true,
  leaseExpiresAt: true,
  afterReviewedAt: true,
  escalatedAt: true,
  outcomeUnknownAt: true,
} satisfies Record<ProposalTime, true>) as ProposalTime[];

export function proposalFromJson(row: JsonProposal): Proposal {
  const proposal = { ...row } as Record<string, unknown>;
  for (const key of PROPOSAL_TIMES) proposal[key] = utcOrNull(row[key] as string | null);
  return proposal as unknown as Proposal;
}

export function attemptFromJson(row: JsonAttempt): ExecutionAttempt {
  return { ...row, startedAt: utc(row.startedAt), finishedAt: utcOrNull(row.finishedAt) };
}
