// Every role against every query, mutation and subscription: allowed, or refused with FORBIDDEN
// before anything runs. The expected table is written out here, independently of src/domain/access.ts.
import { isObjectType } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Role } from '../../src/domain/access.js';
import { FIELD_PERMISSIONS } from '../../src/graphql/builder.js';
import { schema } from '../../src/graphql/schema.js';
import { postGraphQL, startTestServer, type TestClient, type TestServer } from '../support/server.js';
import { connectWs, waitFor, writeUntilReceived } from '../support/ws.js';

const ALL: Role[] = ['ADMIN', 'PROPOSER', 'REVIEWER', 'EXECUTOR', 'RECONCILER', 'VIEWER'];

/** Who may do what, as the product promises it (SPEC §5, issue 5). */
const EXPECTED: Record<string, Role[]> = {
  'Query.serverTime': ALL,
  'Query.item': ALL,
  'Query.items': ALL,
  'Query.events': ALL,
  'Query.categories': ALL,
  'Query.node': ALL,
  'Query.nodes': ALL,
  'Query.viewer': ALL,
  'Query.apiKeys': ['ADMIN'],
  'Query.webhookDeliveries': ['ADMIN'],
  'Mutation.addCategories': ['ADMIN'],
  'Mutation.retireCategory': ['ADMIN'],
  'Mutation.addItem': ['PROPOSER'],
  'Mutation.addItems': ['PROPOSER'],
  'Mutation.claimItem': ['REVIEWER'],
  'Mutation.renewLease': ['REVIEWER'],
  'Mutation.releaseLease': ['REVIEWER'],
  'Mutation.decideItem': ['REVIEWER'],
  'Mutation.createApiKey': ['ADMIN'],
  'Mutation.revokeApiKey': ['ADMIN'],
  'Query.proposals': ALL,
  'Query.proposalStats': ALL,
  'Mutation.submitProposal': ['PROPOSER'],
  'Mutation.claimProposal': ['REVIEWER'],
  'Mutation.renewProposalLease': ['REVIEWER', 'EXECUTOR'],
  'Mutation.releaseProposalLease': ['REVIEWER'],
  'Mutation.reviewProposal': ['REVIEWER'],
  'Mutation.cancelProposal': ['PROPOSER', 'ADMIN'],
  // Stopping is the safe direction, restarting is not (issue 17, item 5).
  'Mutation.holdProposal': ['ADMIN', 'REVIEWER', 'EXECUTOR', 'RECONCILER'],
  'Mutation.resumeProposal': ['ADMIN'],
  'Mutation.escalateProposal': ['ADMIN', 'REVIEWER', 'EXECUTOR', 'RECONCILER'],
  'Mutation.assignProposal': ['ADMIN', 'REVIEWER'],
  // EXECUTORs by default; principals named in TARGET_STATE_REPORTERS too (test/api/proposal-least-privilege.test.ts).
  'Mutation.reportTargetState': ['EXECUTOR'],
  'Mutation.claimExecution': ['EXECUTOR'],
  'Mutation.startExecutionAttempt': ['EXECUTOR'],
  'Mutation.reportExecutionResult': ['EXECUTOR'],
  'Mutation.reconcileProposal': ['RECONCILER'],
  'Mutation.reviewExecutedProposal': ['REVIEWER'],
  'Mutation.recordManualExecution': ['EXECUTOR'],
  'Mutation.claimManualExecution': ['EXECUTOR'],
  'Query.targetState': ALL,
  'Subscription.proposalEvents': ALL,
  'Subscription.queueEvents': ALL,
  'Subscription.itemEvents': ALL,
  'Subscription.queueStats': ALL,
  'Subscription.leaseEvents': ['REVIEWER'],
};

const UNKNOWN_TOKEN = 'lh_abcdefghijklmnopqrstuvwxyz012345';
const ITEM_ID = Buffer.from('Item:1').toString('base64');
const UNKNOWN_PROPOSAL = Buffer.from('Proposal:999999').toString('base64');

/** One operation per root field, valid for an allowed caller (a UserError still means "allowed"). */
function operationFor(field: string, role: Role): { query: string; variables?: Record<string, unknown> } {
  const unique = `${role}-${field}`;
  switch (field) {
    case 'Query.serverTime':
      return { query: '{ serverTime }' };
    case 'Query.item':
      return { query: '{ item(batchId: "b", recordId: "r-0") { __typename } }' };
    case 'Query.items':
      return { query: '{ items(first: 5) { edges { node { id } } } }' };
    case 'Query.events':
      return { query: '{ events(first: 5) { edges { node { id } } } }' };
    case 'Query.categories':
      return { query: '{ categories { name } }' };
    case 'Query.node':
      return { query: 'query($id: ID!) { node(id: $id) { id } }', variables: { id: ITEM_ID } };
    case 'Query.nodes':
      return { query: 'query($id: ID!) { nodes(ids: [$id]) { id } }', variables: { id: ITEM_ID } };
    case 'Query.viewer':
      return { query: '{ viewer { name roles } }' };
    case 'Query.apiKeys':
      return { query: '{ apiKeys { id } }' };
    case 'Query.webhookDeliveries':
      return { query: '{ webhookDeliveries(first: 5) { edges { node { id status } } } }' };
    case 'Mutation.addCategories':
      return { query: `mutation { addCategories(input: { names: ["${unique}"] }) { __typename } }` };
    case 'Mutation.retireCategory':
      return { query: `mutation { retireCategory(input: { name: "retire-${role}" }) { __typename } }` };
    case 'Mutation.addItem':
      return {
        query: `mutation { addItem(input: { batchId: "m", recordId: "${unique}", proposedCategory: "c", reason: "r" }) { __typename } }`,
      };
    case 'Mutation.addItems':
      return {
        query: `mutation { addItems(input: { items: [{ batchId: "m", recordId: "${unique}", proposedCategory: "c", reason: "r" }] }) { __typename } }`,
      };
    case 'Mutation.claimItem':
      return { query: 'mutation { claimItem(input: { leaseSeconds: 60 }) { __typename } }' };
    case 'Mutation.renewLease':
      return { query: `mutation { renewLease(input: { token: "${UNKNOWN_TOKEN}" }) { __typename } }` };
    case 'Mutation.releaseLease':
      return { query: `mutation { releaseLease(input: { token: "${UNKNOWN_TOKEN}" }) { __typename } }` };
    case 'Mutation.decideItem':
      return { query: `mutation { decideItem(input: { token: "${UNKNOWN_TOKEN}", decision: ACCEPTED }) { __typename } }` };
    case 'Mutation.createApiKey':
      return { query: `mutation { createApiKey(input: { name: "made-by-${role}", roles: [VIEWER] }) { __typename } }` };
    case 'Mutation.revokeApiKey':
      return { query: 'mutation { revokeApiKey(input: { id: 999999 }) { __typename } }' };
    case 'Query.proposals':
      return { query: '{ proposals(first: 5) { edges { node { id state blockedReason } } } }' };
    case 'Query.proposalStats':
      return { query: '{ proposalStats { byState { key count } needingReconciliation decisionWaitP50Seconds } }' };
    case 'Mutation.submitProposal':
      return {
        query: `mutation { submitProposal(input: { batchId: "p", recordId: "${unique}", action: "refund", parameters: { amount: 5 }, reason: "r", target: { system: "billing", recordId: "inv-1" }, currentValue: 10, proposedValue: 5, dataSource: "ledger", riskLevel: LOW, fingerprint: "fp-1" }) { __typename } }`,
      };
    case 'Mutation.claimProposal':
      return { query: 'mutation { claimProposal(input: {}) { __typename } }' };
    case 'Mutation.renewProposalLease':
      return { query: `mutation { renewProposalLease(input: { token: "${UNKNOWN_TOKEN}" }) { __typename } }` };
    case 'Mutation.releaseProposalLease':
      return { query: `mutation { releaseProposalLease(input: { token: "${UNKNOWN_TOKEN}" }) { __typename } }` };
    case 'Mutation.reviewProposal':
      return { query: `mutation { reviewProposal(input: { token: "${UNKNOWN_TOKEN}", decision: APPROVE, revision: 1 }) { __typename } }` };
    case 'Mutation.cancelProposal':
      return { query: `mutation { cancelProposal(input: { id: "${UNKNOWN_PROPOSAL}", reason: "r" }) { __typename } }` };
    case 'Mutation.holdProposal':
      return { query: `mutation { holdProposal(input: { id: "${UNKNOWN_PROPOSAL}", reason: "r" }) { __typename } }` };
    case 'Mutation.resumeProposal':
      return { query: `mutation { resumeProposal(input: { id: "${UNKNOWN_PROPOSAL}", reason: "r" }) { __typename } }` };
    case 'Mutation.escalateProposal':
      return { query: `mutation { escalateProposal(input: { id: "${UNKNOWN_PROPOSAL}", reason: "r", to: "ADMIN" }) { __typename } }` };
    case 'Mutation.assignProposal':
      return { query: `mutation { assignProposal(input: { id: "${UNKNOWN_PROPOSAL}", assignee: "a" }) { __typename } }` };
    case 'Mutation.reportTargetState':
      return {
        query:
          'mutation { reportTargetState(input: { target: { system: "billing", recordId: "nothing" }, fingerprint: "fp" }) { __typename } }',
      };
    case 'Mutation.claimExecution':
      return { query: 'mutation { claimExecution(input: {}) { __typename } }' };
    case 'Mutation.startExecutionAttempt':
      return { query: `mutation { startExecutionAttempt(input: { token: "${UNKNOWN_TOKEN}", fingerprint: "fp" }) { __typename } }` };
    case 'Mutation.reportExecutionResult':
      return { query: `mutation { reportExecutionResult(input: { token: "${UNKNOWN_TOKEN}", outcome: SUCCEEDED }) { __typename } }` };
    case 'Mutation.reviewExecutedProposal':
      return { query: `mutation { reviewExecutedProposal(input: { id: "${UNKNOWN_PROPOSAL}", verdict: CONFIRMED }) { __typename } }` };
    case 'Mutation.reconcileProposal':
      return {
        query: `mutation { reconcileProposal(input: { id: "${UNKNOWN_PROPOSAL}", executed: true, evidence: "e" }) { __typename } }`,
      };
    case 'Mutation.recordManualExecution':
      return {
        query: `mutation { recordManualExecution(input: { id: "${UNKNOWN_PROPOSAL}", fingerprint: "fp", reason: "r", evidence: "e" }) { __typename } }`,
      };
    case 'Query.targetState':
      return { query: 'query { targetState(system: "s", recordId: "r") { fingerprint } }' };
    case 'Mutation.claimManualExecution':
      return { query: `mutation { claimManualExecution(input: { id: "${UNKNOWN_PROPOSAL}", reason: "r" }) { __typename } }` };
    default:
      throw new Error(`no operation for ${field}`);
  }
}

const rootFields = (): string[] =>
  (['Query', 'Mutation', 'Subscription'] as const).flatMap((root) => {
    const type = schema.getType(root);
    return type && isObjectType(type) ? Object.keys(type.getFields()).map((name) => `${root}.${name}`) : [];
  });

describe('access matrix', () => {
  let server: TestServer;
  const clients = new Map<Role, TestClient>();

  beforeAll(async () => {
    server = await startTestServer();
    const admin = await server.as('setup', ['ADMIN', 'PROPOSER']);
    const setup = async (query: string) => {
      const body = (await (await postGraphQL(server.url, query, {}, admin.headers)).json()) as { errors?: unknown };
      expect(body.errors).toBeUndefined();
    };
    await setup(`mutation { addCategories(input: { names: ["c", ${ALL.map((role) => `"retire-${role}"`).join(', ')}] }) { __typename } }`);
    await setup('mutation { addItem(input: { batchId: "b", recordId: "r-0", proposedCategory: "c", reason: "r" }) { __typename } }');
    for (const role of ALL) clients.set(role, await server.as(`only-${role.toLowerCase()}`, [role]));
  });
  afterAll(() => server.stop());

  it('covers every root field of the schema, and every root field declares the permission it needs', () => {
    expect(rootFields().sort()).toEqual(Object.keys(EXPECTED).sort());
    for (const field of rootFields()) expect(FIELD_PERMISSIONS.has(field), field).toBe(true);
  });

  const httpFields = Object.keys(EXPECTED).filter((field) => !field.startsWith('Subscription.'));
  for (const field of httpFields) {
    for (const role of ALL) {
      const allowed = EXPECTED[field]?.includes(role) ?? false;
      it(`${role} ${allowed ? 'may' : 'may not'} use ${field}`, async () => {
        const client = clients.get(role) as TestClient;
        const { query, variables } = operationFor(field, role);
        const body = (await (await postGraphQL(server.url, query, variables, client.headers)).json()) as {
          data?: Record<string, unknown> | null;
          errors?: { message: string; extensions?: { code?: string } }[];
        };
        if (allowed) {
          expect(body.errors ?? []).toEqual([]);
          expect(body.data).toBeTruthy();
        } else {
          expect(body.errors?.map((error) => error.extensions?.code)).toEqual(['FORBIDDEN']);
          expect(body.errors?.[0]?.message).toContain(`only-${role.toLowerCase()} may not use ${field}`);
        }
      });
    }
  }

  let heldToken = UNKNOWN_TOKEN;
  const subscriptions: Record<string, (client: TestClient) => Promise<{ query: string; variables?: Record<string, unknown> }>> = {
    'Subscription.queueEvents': async () => ({ query: 'subscription { queueEvents(after: 0) { sequence } }' }),
    'Subscription.itemEvents': async () => ({
      query: 'subscription($id: ID!) { itemEvents(id: $id, after: 0) { sequence } }',
      variables: { id: ITEM_ID },
    }),
    'Subscription.queueStats': async () => ({ query: 'subscription { queueStats { pending } }' }),
    // PROPOSER's submitProposal above recorded proposal events to replay.
    'Subscription.proposalEvents': async () => ({ query: 'subscription { proposalEvents(after: 0) { sequence type } }' }),
    // Only a reviewer can hold a lease to follow; the others are refused before the token is looked at.
    'Subscription.leaseEvents': async (client) => {
      let token = UNKNOWN_TOKEN;
      if (client.name === 'only-reviewer') {
        const body = (await (
          await postGraphQL(
            server.url,
            'mutation { claimItem(input: { leaseSeconds: 600 }) { ... on ClaimItemPayload { lease { token } } } }',
            {},
            client.headers,
          )
        ).json()) as { data: { claimItem: { lease: { token: string } | null } } };
        token = body.data.claimItem.lease?.token ?? UNKNOWN_TOKEN;
        heldToken = token;
      }
      return { query: 'subscription($token: String!) { leaseEvents(token: $token) { kind } }', variables: { token } };
    },
  };

  for (const field of Object.keys(subscriptions)) {
    for (const role of ALL) {
      const allowed = EXPECTED[field]?.includes(role) ?? false;
      it(`${role} ${allowed ? 'may' : 'may not'} subscribe to ${field}`, async () => {
        const client = clients.get(role) as TestClient;
        const ws = await connectWs(server.url, client.headers);
        try {
          const { query, variables } = await (
            subscriptions[field] as (c: TestClient) => Promise<{ query: string; variables?: Record<string, unknown> }>
          )(client);
          const collected = ws.subscribe(query, variables);
          if (allowed) {
            if (field === 'Subscription.leaseEvents') {
              // Allowed and live: the holder's renewal arrives as a notice. The stream's start on the server
              // cannot be observed from here, so renew until one arrives (a renewal before it is not replayed).
              expect(heldToken).not.toBe(UNKNOWN_TOKEN);
              await writeUntilReceived(
                () => collected.data.length > 0,
                async () => {
                  const renewed = (await (
                    await postGraphQL(
                      server.url,
                      'mutation($t: String!) { renewLease(input: { token: $t }) { __typename } }',
                      { t: heldToken },
                      client.headers,
                    )
                  ).json()) as { data: { renewLease: { __typename: string } } };
                  expect(renewed.data.renewLease.__typename).toBe('RenewLeasePayload');
                },
              );
              const [notice] = collected.data;
              expect(notice).toEqual({ leaseEvents: { kind: 'RENEWED' } });
            } else {
              await waitFor(
                () => collected.results.length > 0,
                5_000,
                () => JSON.stringify(collected.error),
              );
              expect(collected.results[0]?.errors).toBeUndefined();
            }
            expect(collected.error).toBeNull();
          } else {
            await collected.ended;
            // Refused when the subscription starts: one result carrying the error, then complete.
            expect(collected.data).toEqual([]);
            const errors = (collected.results[0]?.errors ?? collected.error) as { extensions?: { code?: string } }[];
            expect(errors.map((error) => error.extensions?.code)).toEqual(['FORBIDDEN']);
          }
          collected.unsubscribe();
        } finally {
          await ws.close();
        }
      });
    }
  }
});
