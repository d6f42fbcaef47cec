// The schema as normalized caches read it, with the real clients against a real server: Apollo Client's
// InMemoryCache and urql's Graphcache key every object with an `id` field by that field. An `id` that is not
// globally unique merges different objects: two proposals whose targets share a record id in different
// systems were shown with one system. Every `id` in the schema is a global id (Relay `Node`).
import { ApolloClient, gql, HttpLink, InMemoryCache } from '@apollo/client';
import { Client, fetchExchange, gql as urqlGql } from '@urql/core';
import { cacheExchange } from '@urql/exchange-graphcache';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { graphcacheOptions } from '../../examples/clients/graphcache.js';
import { postGraphQL, startTestServer, type TestClient, type TestServer } from '../support/server.js';

const SUBMIT = `mutation($recordId: String!, $system: String!) {
  submitProposal(input: { batchId: "caches", recordId: $recordId, action: "refund", parameters: {},
    reason: "r", target: { system: $system, recordId: "inv-7" }, currentValue: 1, proposedValue: 2,
    dataSource: "d", riskLevel: LOW, fingerprint: "f" }) { __typename }
}`;

const PROPOSALS = `query { proposals(first: 10) { edges { node { id recordId target { system recordId } } } } }`;
const CATEGORIES = `query { categories { id name retiredAt } }`;

type Proposals = { proposals: { edges: { node: { recordId: string; target: { system: string; recordId: string } } }[] } };

describe('normalized client caches', () => {
  let server: TestServer;
  let viewer: TestClient;
  beforeAll(async () => {
    server = await startTestServer();
    const proposer = await server.as('agent', ['PROPOSER']);
    viewer = await server.as('viewer', ['VIEWER']);
    for (const [recordId, system] of [
      ['p-billing', 'billing'],
      ['p-crm', 'crm'],
    ]) {
      const response = await postGraphQL(server.url, SUBMIT, { recordId, system }, proposer.headers);
      expect(await response.json()).toEqual({ data: { submitProposal: { __typename: 'SubmitProposalPayload' } } });
    }
    const setup = await server.as('setup', ['ADMIN', 'PROPOSER']);
    await postGraphQL(server.url, 'mutation { addCategories(input: { names: ["a", "b"] }) { __typename } }', undefined, setup.headers);
  });
  afterAll(() => server.stop());

  /** What the server answers, raw: the truth the caches must keep. */
  async function raw<T>(query: string): Promise<T> {
    const body = (await (await postGraphQL(server.url, query, undefined, viewer.headers)).json()) as { data: T };
    return body.data;
  }

  /** A result without the `__typename`s Apollo adds to every selection. */
  const plain = (value: unknown): unknown => JSON.parse(JSON.stringify(value), (key, field) => (key === '__typename' ? undefined : field));

  const systems = (data: Proposals) => Object.fromEntries(data.proposals.edges.map(({ node }) => [node.recordId, node.target.system]));

  it('Apollo Client keeps two targets that share a record id apart', async () => {
    const apollo = new ApolloClient({
      link: new HttpLink({ uri: `${server.url}/graphql`, headers: viewer.headers }),
      cache: new InMemoryCache(),
    });
    const { data } = await apollo.query<Proposals>({ query: gql(PROPOSALS) });
    expect(systems(data as Proposals)).toEqual({ 'p-billing': 'billing', 'p-crm': 'crm' });
    expect(plain(data)).toEqual(await raw(PROPOSALS));
    const categories = await apollo.query({ query: gql(CATEGORIES) });
    expect(plain(categories.data)).toEqual(await raw(CATEGORIES));
  });

  it('a category is a Node: retiring it updates the list Apollo has cached, with no refetch', async () => {
    const admin = await server.as('setup', ['ADMIN', 'PROPOSER']);
    const apollo = new ApolloClient({
      link: new HttpLink({ uri: `${server.url}/graphql`, headers: admin.headers }),
      // The mutation's result is a union (RetireCategoryPayload | UserError): the cache must know its members.
      cache: new InMemoryCache({ possibleTypes: { RetireCategoryResult: ['RetireCategoryPayload', 'UserError'] } }),
    });
    const LIST = gql('query { categories(includeRetired: true) { id name retired } }');
    const before = await apollo.query<{ categories: { id: string; name: string; retired: boolean }[] }>({ query: LIST });
    const b = before.data?.categories.find((category) => category.name === 'b');
    expect(b?.retired).toBe(false);
    const node = await raw<{ node: { name: string } | null }>(`{ node(id: "${b?.id}") { ... on Category { name } } }`);
    expect(node).toEqual({ node: { name: 'b' } });
    await apollo.mutate({
      mutation: gql('mutation { retireCategory(input: { name: "b" }) { ... on RetireCategoryPayload { category { id retired } } } }'),
    });
    const after = apollo.readQuery<{ categories: { name: string; retired: boolean }[] }>({ query: LIST });
    expect(after?.categories.find((category) => category.name === 'b')?.retired).toBe(true);
  });

  it('urql with Graphcache keeps them apart too, configured as docs/clients.md says, without a warning', async () => {
    const warned = vi.spyOn(console, 'warn');
    try {
      const urql = new Client({
        url: `${server.url}/graphql`,
        // Queries by POST: a GET needs Yoga's CSRF header (see docs/clients.md).
        preferGetMethod: false,
        fetchOptions: { headers: viewer.headers },
        // The schema, and the types with no `id` (a target among them) stored inside their parent.
        exchanges: [cacheExchange(graphcacheOptions), fetchExchange],
      });
      const result = await urql.query(urqlGql(PROPOSALS), {}).toPromise();
      expect(result.error).toBeUndefined();
      expect(systems(result.data as Proposals)).toEqual({ 'p-billing': 'billing', 'p-crm': 'crm' });
      const categories = await urql.query(urqlGql(CATEGORIES), {}).toPromise();
      expect(categories.error).toBeUndefined();
      expect(plain(categories.data)).toEqual(await raw(CATEGORIES));
      expect(warned.mock.calls).toEqual([]);
    } finally {
      warned.mockRestore();
    }
  });
});
