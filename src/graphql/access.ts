// Identity over GraphQL: who the caller is (`viewer`), and API key administration for ADMINs.
import type { ApiKey } from '../db/client.js';
import { type Principal, parseRoles, ROLE_NAMES, ROLES, type Role } from '../domain/access.js';
import { createApiKey, listApiKeys, revokeApiKey } from '../services/api-keys.js';
import { audited, builder, refusals, requires } from './builder.js';

export const RoleEnum = builder.enumType('Role', {
  description: 'What a principal may do. A principal may hold several.',
  values: Object.fromEntries(ROLE_NAMES.map((role) => [role, { description: ROLES[role] }])) as Record<Role, { description: string }>,
});

const CredentialEnum = builder.enumType('Credential', {
  description: 'How the caller proved who it is.',
  values: {
    API_KEY: { description: 'A Leasehold API key.' },
    JWT: { description: 'A JWT signed by the configured identity provider.' },
  },
});

const sortedRoles = (roles: Iterable<Role>): Role[] => [...roles].sort();

const ViewerRef = builder.objectRef<Principal>('Viewer').implement({
  description: 'The authenticated caller.',
  fields: (t) => ({
    name: t.exposeString('name', { description: 'The principal’s name: recorded as holder, decider and actor of its changes.' }),
    roles: t.field({ type: [RoleEnum], description: 'Its roles, sorted.', resolve: (principal) => sortedRoles(principal.roles) }),
    credential: t.field({ type: CredentialEnum, description: 'How it authenticated.', resolve: (principal) => principal.credential }),
    credentialExpiresAt: t.expose('expiresAt', {
      type: 'DateTime',
      nullable: true,
      description: 'When the credential stops working by itself (a JWT’s expiry); null for API keys.',
    }),
  }),
});

const ApiKeyRef = builder.objectRef<ApiKey>('ApiKey').implement({
  description: 'An API key. The key itself is shown only once, by createApiKey; this is what is kept about it.',
  fields: (t) => ({
    id: t.exposeInt('id', { description: 'Its number, for revokeApiKey.' }),
    name: t.exposeString('name', { description: 'The principal it authenticates as.' }),
    roles: t.field({ type: [RoleEnum], description: 'The roles it grants, sorted.', resolve: (key) => sortedRoles(parseRoles(key.roles)) }),
    prefix: t.exposeString('prefix', { description: 'The first characters of the key, to tell keys apart.' }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When it was made.' }),
    createdBy: t.exposeString('createdBy', { description: 'Who made it.' }),
    lastUsedAt: t.expose('lastUsedAt', {
      type: 'DateTime',
      nullable: true,
      description: 'When it last authenticated a request (updated at most once a minute).',
    }),
    revokedAt: t.expose('revokedAt', { type: 'DateTime', nullable: true, description: 'When it was revoked; null while it works.' }),
    revokedBy: t.exposeString('revokedBy', { nullable: true, description: 'Who revoked it.' }),
  }),
});

builder.queryFields((t) => ({
  viewer: t.field({
    type: ViewerRef,
    authScopes: requires('Query', 'viewer', 'readQueue'),
    description: 'Who the caller is, by the credential it sent.',
    resolve: (_root, _args, context) => context.principal,
  }),
  apiKeys: t.field({
    type: [ApiKeyRef],
    authScopes: requires('Query', 'apiKeys', 'manageApiKeys'),
    description: 'The API keys, oldest first; revoked ones only when asked for. ADMIN only.',
    args: { includeRevoked: t.arg.boolean({ required: true, defaultValue: false, description: 'Also list revoked keys.' }) },
    resolve: (_root, args, context) => listApiKeys(context, { includeRevoked: args.includeRevoked }),
  }),
}));

const CreateApiKeyPayload = builder.objectRef<{ key: string; apiKey: ApiKey }>('CreateApiKeyPayload').implement({
  description: 'A new key. `key` is shown here once; store it now.',
  fields: (t) => ({
    key: t.exposeString('key', { description: 'The secret: send it as `Authorization: Bearer <key>`. Never shown again.' }),
    apiKey: t.field({ type: ApiKeyRef, description: 'What is kept about it.', resolve: (payload) => payload.apiKey }),
  }),
});

const RevokeApiKeyPayload = builder.objectRef<{ apiKey: ApiKey }>('RevokeApiKeyPayload').implement({
  description: 'The revoked key.',
  fields: (t) => ({ apiKey: t.field({ type: ApiKeyRef, description: 'The key, now revoked.', resolve: (payload) => payload.apiKey }) }),
});

builder.mutationFields((t) => ({
  createApiKey: t.field({
    type: CreateApiKeyPayload,
    authScopes: requires('Mutation', 'createApiKey', 'manageApiKeys'),
    description: 'Makes an API key for a principal (an app, a worker or a person). ADMIN only.',
    errors: refusals('CreateApiKey'),
    args: {
      input: t.arg({
        required: true,
        description: 'What to do; see the input type.',
        type: builder.inputType('CreateApiKeyInput', {
          description: 'The principal the key authenticates as, and its roles.',
          fields: (f) => ({
            name: f.string({ required: true, description: 'The principal’s name, 1–100 characters.' }),
            roles: f.field({ type: [RoleEnum], required: true, description: 'One or more roles.' }),
            samePrincipal: f.boolean({
              required: true,
              defaultValue: false,
              description:
                'True when another key already has this name and the new key is meant to act as the same principal (its leases, proposals and history); otherwise such a name is refused with PRINCIPAL_NAME_TAKEN.',
            }),
          }),
        }),
      }),
    },
    resolve: audited(async (_root, { input }, context) => {
      const issued = await createApiKey(context, context.actor, input);
      return { key: issued.key, apiKey: issued.record };
    }),
  }),
  revokeApiKey: t.field({
    type: RevokeApiKeyPayload,
    authScopes: requires('Mutation', 'revokeApiKey', 'manageApiKeys'),
    description: 'Revokes a key at once: requests with it are refused and WebSocket connections it opened are closed. ADMIN only.',
    errors: refusals('RevokeApiKey'),
    args: {
      input: t.arg({
        required: true,
        description: 'What to do; see the input type.',
        type: builder.inputType('RevokeApiKeyInput', {
          description: 'The key to revoke.',
          fields: (f) => ({ id: f.int({ required: true, description: 'The key’s id (see `apiKeys`).' }) }),
        }),
      }),
    },
    resolve: audited(async (_root, { input }, context) => {
      const apiKey = await revokeApiKey(context, context.actor, input.id);
      context.forgetApiKey(apiKey.id);
      return { apiKey };
    }),
  }),
}));
