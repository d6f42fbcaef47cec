// Deciding an item: only the holder of an unexpired lease can, and the lease ends with it.
import type { Item } from '../db/client.js';
import { appendEvent } from '../db/event-store.js';
import { categoryStanding, recordDecision } from '../db/item-store.js';
import type { TxSql } from '../db/tx-sql.js';
import { DomainError } from '../domain/errors.js';
import { hashLeaseToken } from '../domain/lease.js';
import { checkDecisionArguments, type Decision, finalCategory } from '../domain/review.js';
import { validateToken } from '../domain/validation.js';
import type { Actor, ServiceDeps } from './context.js';
import { findActiveLease, heldChange } from './leases.js';

export interface DecideInput {
  token: string;
  decision: Decision;
  category?: string | null;
}

export async function decideItem(deps: ServiceDeps, actor: Actor, input: DecideInput): Promise<Item> {
  // Seed A's order: token shape, then the decision's category arguments, then the database.
  const token = validateToken(input.token);
  const correction = checkDecisionArguments(input.decision, input.category);

  const selfReview = () =>
    new DomainError('SELF_REVIEW', 'You proposed this item, so you may not decide it; release it for another reviewer.', 'token');
  const conflict = () => new DomainError('DECISION_CONFLICT', 'The item changed while deciding; look it up and claim again.');

  const work = async (sql: TxSql): Promise<Item> => {
    const now = deps.clock.now();
    const held = await findActiveLease(sql, token, now, actor);
    if (actor.authenticated && held.addedBy === actor.name) throw selfReview();
    const standing = correction === null ? null : await categoryStanding(sql, correction);
    const final = finalCategory(input.decision, held.proposedCategory, correction, standing);
    // The decider is the lease holder, as in seed A.
    const reviewedBy = held.claimedBy ?? actor.name;

    if (!(await recordDecision(sql, held, now, { status: input.decision, finalCategory: final, reviewedBy }))) throw conflict();
    const item: Item = {
      ...held,
      status: input.decision,
      finalCategory: final,
      reviewedBy,
      decidedAt: now,
      leaseTokenHash: null,
      claimedBy: null,
      claimedAt: null,
      leaseExpiresAt: null,
      version: held.version + 1,
    };
    await appendEvent(sql, {
      type: 'ITEM_DECIDED',
      actor: reviewedBy,
      at: now,
      item,
      leaseNumber: held.leaseNumber,
      fromStatus: 'PENDING',
      toStatus: input.decision,
      details: {
        decision: input.decision,
        finalCategory: final,
        reviewedBy,
        heldMs: held.claimedAt ? now.getTime() - held.claimedAt.getTime() : null,
      },
    });
    return item;
  };

  return deps.db.perform({
    work: (_tx, sql) => work(sql),
    call: {
      fields: {
        op: 'decide',
        decision: input.decision,
        correction,
        tokenHash: hashLeaseToken(token),
        actor: actor.name,
        authenticated: actor.authenticated,
      },
      clock: deps.clock,
      answer: (answer) => {
        if (answer.selfReview) throw selfReview();
        if (answer.category) {
          const { proposedCategory, exists, retired } = answer.category;
          finalCategory(input.decision, proposedCategory, correction, exists ? { exists, retired } : null);
          throw new Error('The database refused a category the same rules accept.');
        }
        return heldChange(answer, actor, conflict);
      },
    },
  });
}
