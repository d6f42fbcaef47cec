// A STALE proposal's reason quotes the fingerprints involved, cut to their first 60 characters: whole
// characters, never half of one (a UTF-16 cut could leave a lone surrogate, which no UTF-8 store keeps, so the
// answer would differ from the row). The same on both backends, by either of its paths (an attempt, a report).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Database, openDatabase } from '../../src/db/client.js';
import { ManualClock } from '../../src/domain/clock.js';
import type { Actor } from '../../src/services/context.js';
import {
  claimExecution,
  claimProposal,
  type ProposalDeps,
  reportTargetState,
  reviewProposal,
  startExecutionAttempt,
  submitProposal,
} from '../../src/services/proposals/index.js';
import { BACKEND, type TestDatabase, testDatabase } from '../support/database.js';
import { proposalInput } from '../support/proposals.js';

const who = (name: string): Actor => ({ name, authenticated: true });
/** 31 characters in 61 UTF-16 units: kept whole (a cut at 60 units would split the last emoji). */
const PRESENTED = `a${'🙃'.repeat(30)}`;
const APPROVED = '🙂'.repeat(70);
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

describe(`reasons quoting fingerprints keep whole characters (${BACKEND})`, () => {
  let database: TestDatabase;
  let db: Database;
  let deps: ProposalDeps;
  beforeEach(async () => {
    database = await testDatabase();
    db = await openDatabase({ location: database.location });
    deps = { db, clock: new ManualClock(Date.UTC(2026, 11, 3, 12)) };
  });
  afterEach(async () => {
    await db.close();
    await database.cleanup();
  });

  const stored = async (id: number) => (await db.read.proposal.findUniqueOrThrow({ where: { id } })).stateReason;

  it('an attempt against another fingerprint: the reason names 60 characters of each, as stored', async () => {
    const { proposal } = await submitProposal(deps, who('agent'), proposalInput('emoji', { fingerprint: APPROVED }));
    const review = await claimProposal(deps, who('alice'), { id: proposal.id });
    await reviewProposal(deps, who('alice'), { token: review?.token as string, decision: 'APPROVE', revision: 1 });
    const run = await claimExecution(deps, who('worker'), {});
    const started = await startExecutionAttempt(deps, who('worker'), { token: run?.token as string, fingerprint: PRESENTED });
    expect(started.attempt).toBeNull();
    expect(started.proposal.state).toBe('STALE');
    expect(started.proposal.stateReason).toBe(
      `At execution the target's fingerprint was ${PRESENTED}, not the approved ${'🙂'.repeat(60)}.`,
    );
    expect(started.proposal.stateReason).not.toMatch(LONE_SURROGATE);
    expect(await stored(proposal.id)).toBe(started.proposal.stateReason);
  });

  it('a report of the target: the proposals it makes STALE say so in whole characters, as stored', async () => {
    const { proposal } = await submitProposal(deps, who('agent'), proposalInput('emoji', { fingerprint: APPROVED }));
    const [stale] = await reportTargetState(
      deps,
      { ...who('sync'), roles: new Set(['EXECUTOR'] as const) },
      { targetSystem: 'shop', targetId: 'emoji', fingerprint: PRESENTED },
    );
    expect(stale?.id).toBe(proposal.id);
    expect(stale?.stateReason).toBe(`The target's fingerprint is now ${PRESENTED}; this revision was made against ${'🙂'.repeat(60)}.`);
    expect(stale?.stateReason).not.toMatch(LONE_SURROGATE);
    expect(await stored(proposal.id)).toBe(stale?.stateReason);
  });
});
