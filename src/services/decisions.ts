// Deciding an item: only the holder of an unexpired lease can, and the lease ends with it.
import type { Item } from '../db/client.js';
import { DomainError } from '../domain/errors.js';
import { checkDecisionArguments, type Decision, finalCategory } from '../domain/review.js';
import { validateToken } from '../domain/validation.js';
import type { Actor, ServiceDeps } from './context.js';
import { recordEvent } from './event-log.js';
import { findActiveLease, heldLeaseWhere } from './leases.js';

export interface DecideInput {
  token: string;
  decision: Decision;
  category?: string | null;
}

export async function decideItem(deps: ServiceDeps, actor: Actor, input: DecideInput): Promise<Item> {
  // Seed A's order: token shape, then the decision's category arguments, then the database.
  const token = validateToken(input.token);
  const correction = checkDecisionArguments(input.decision, input.category);

  return deps.db.write(async (tx) => {
    const now = deps.clock.now();
    const held = await findActiveLease(tx, token, now);
    const standing =
      correction === null
        ? null
        : await tx.category
            .findUnique({ where: { name: correction }, select: { retiredAt: true } })
            .then((category) => (category ? { exists: true, retired: category.retiredAt !== null } : null));
    const final = finalCategory(input.decision, held.proposedCategory, correction, standing);
    // The decider is the lease holder, as in seed A.
    const reviewer = held.claimedBy ?? actor.name;

    const decided = {
      status: input.decision,
      finalCategory: final,
      reviewedBy: reviewer,
      decidedAt: now,
      leaseTokenHash: null,
      claimedBy: null,
      claimedAt: null,
      leaseExpiresAt: null,
    };
    const { count } = await tx.item.updateMany({
      where: heldLeaseWhere(held, now),
      data: { ...decided, version: { increment: 1 } },
    });
    if (count !== 1) throw new DomainError('DECISION_CONFLICT', 'The item changed while deciding; look it up and claim again.');

    const item: Item = { ...held, ...decided, version: held.version + 1 };
    await recordEvent(tx, {
      type: 'ITEM_DECIDED',
      actor: reviewer,
      at: now,
      item,
      fromStatus: 'PENDING',
      toStatus: input.decision,
      details: { decision: input.decision, finalCategory: final, reviewedBy: reviewer },
    });
    return item;
  });
}
