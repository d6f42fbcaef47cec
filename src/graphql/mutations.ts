// Mutation root fields: one use case each, with the caller's identity from the context.
import { wrapErrorIfMatches } from '@pothos/plugin-errors';
import type { Category, Item } from '../db/client.js';
import { DomainError } from '../domain/errors.js';
import { addCategories, retireCategory } from '../services/categories.js';
import { decideItem } from '../services/decisions.js';
import { type AddItemOutcome, addItem, addItems } from '../services/items.js';
import { claimItem, releaseLease, renewLease } from '../services/leases.js';
import { renamedTo } from './aliases.js';
import { audited, builder, refusals, requires } from './builder.js';
import { CategoryRef } from './types/category.js';
import { ItemRef } from './types/refs.js';

const DecisionEnum = builder.enumType('Decision', {
  description: 'The outcome a reviewer records.',
  values: {
    ACCEPTED: { description: 'Keep the proposed category. Takes no category.' },
    CORRECTED: { description: 'Replace it with another allowed category, given in `category`.' },
    REJECTED: { description: 'Reject the proposal; no final category. Takes no category.' },
  },
});

const AddItemInput = builder.inputType('AddItemInput', {
  description: 'A proposal to review. Text must be trimmed and free of control characters.',
  fields: (t) => ({
    batchId: t.string({ required: true, description: 'Batch id, 1–100 characters; (batchId, recordId) must be new.' }),
    recordId: t.string({ required: true, description: 'Record id, 1–100 characters.' }),
    proposedCategory: t.string({ required: true, description: 'An allowed, unretired category (≤ 50 characters).' }),
    reason: t.string({ required: true, description: 'Why the machine proposes it, 1–1000 characters.' }),
  }),
});

const CategoriesPayload = builder.objectRef<{ categories: Category[] }>('AddCategoriesPayload').implement({
  description: 'The categories just added.',
  fields: (t) => ({
    categories: t.field({ type: [CategoryRef], description: 'The new categories, in the order given.', resolve: (p) => p.categories }),
  }),
});

const CategoryPayload = builder.objectRef<{ category: Category }>('RetireCategoryPayload').implement({
  description: 'The category just retired.',
  fields: (t) => ({ category: t.field({ type: CategoryRef, description: 'The retired category.', resolve: (p) => p.category }) }),
});

const ItemPayload = (name: string, description: string) =>
  builder.objectRef<{ item: Item }>(`${name}Payload`).implement({
    description,
    fields: (t) => ({
      item: t.field({ type: ItemRef, description: 'The item after the change.', resolve: (p) => p.item }),
      serverTime: t.field({
        type: 'DateTime',
        description: 'The server clock when the answer was made (for countdowns).',
        resolve: (_p, _a, context) => context.clock.now(),
      }),
    }),
  });

const AddItemPayload = ItemPayload('AddItem', 'The item just added.');
const RenewLeasePayload = ItemPayload('RenewLease', 'The item with its new lease expiry.');
const ReleaseLeasePayload = ItemPayload('ReleaseLease', 'The item, claimable again.');
const DecideItemPayload = ItemPayload('DecideItem', 'The decided item; its lease has ended.');

const AddItemsEntry = builder.objectRef<AddItemOutcome & { index: number }>('AddItemsEntry').implement({
  description: 'The outcome for one input of addItems: either `item` or `error` is set.',
  fields: (t) => ({
    index: t.exposeInt('index', { description: 'Position of the input in `items` (0-based).' }),
    item: t.field({ type: ItemRef, nullable: true, description: 'The added item.', resolve: (e) => (e.ok ? e.item : null) }),
    error: t.field({
      type: DomainError,
      nullable: true,
      description: 'Why it was not added.',
      // graphql-js treats a returned Error as a field error; the errors plugin's wrapper lets it resolve as a UserError.
      resolve: (e) => (e.ok ? null : (wrapErrorIfMatches(e.error, [DomainError]) as DomainError)),
    }),
  }),
});

const AddItemsPayload = builder.objectRef<{ entries: (AddItemOutcome & { index: number })[] }>('AddItemsPayload').implement({
  description: 'One entry per input, in input order. Good items are added even when others are refused.',
  fields: (t) => ({
    entries: t.field({ type: [AddItemsEntry], description: 'Outcome per input.', resolve: (p) => p.entries }),
    addedCount: t.int({ description: 'How many were added.', resolve: (p) => p.entries.filter((e) => e.ok).length }),
    refusedCount: t.int({ description: 'How many were refused.', resolve: (p) => p.entries.filter((e) => !e.ok).length }),
  }),
});

const IssuedLease = builder.objectRef<{ token: string; item: Item }>('IssuedLease').implement({
  description: 'A lease just granted. The token is shown here once; only its hash is stored.',
  fields: (t) => ({
    token: t.exposeString('token', {
      description: 'Proof of holding: pass it to renewLease, releaseLease and decideItem. Keep it secret; it is never shown again.',
    }),
    claimedBy: t.string({ description: 'Who holds the lease.', resolve: (l) => l.item.claimedBy ?? '' }),
    holder: t.string({
      description: 'Who holds the lease.',
      deprecationReason: renamedTo('claimedBy'),
      resolve: (l) => l.item.claimedBy ?? '',
    }),
    claimedAt: t.field({ type: 'DateTime', description: 'When the lease began.', resolve: (l) => l.item.claimedAt ?? new Date(0) }),
    leaseExpiresAt: t.field({
      type: 'DateTime',
      description: 'When it lapses unless renewed.',
      resolve: (l) => l.item.leaseExpiresAt ?? new Date(0),
    }),
    expiresAt: t.field({
      type: 'DateTime',
      description: 'When it lapses unless renewed.',
      deprecationReason: renamedTo('leaseExpiresAt'),
      resolve: (l) => l.item.leaseExpiresAt ?? new Date(0),
    }),
  }),
});

const ClaimItemPayload = builder.objectRef<{ claim: { item: Item; token: string } | null }>('ClaimItemPayload').implement({
  description: 'The claimed item and its lease, or `claimed: false` when nothing is claimable (a normal answer).',
  fields: (t) => ({
    claimed: t.boolean({ description: 'False when no item was claimable.', resolve: (p) => p.claim !== null }),
    item: t.field({ type: ItemRef, nullable: true, description: 'The item now held.', resolve: (p) => p.claim?.item ?? null }),
    lease: t.field({ type: IssuedLease, nullable: true, description: 'The lease, with its one-time token.', resolve: (p) => p.claim }),
    serverTime: t.field({
      type: 'DateTime',
      description: 'The server clock when the answer was made (for countdowns).',
      resolve: (_p, _a, context) => context.clock.now(),
    }),
  }),
});

builder.mutationFields((t) => ({
  addCategories: t.field({
    authScopes: requires('Mutation', 'addCategories', 'manageCategories'),
    type: CategoriesPayload,
    description: 'Sets up or extends the allowed categories (1–100 names, all new, each ≤ 50 characters). All or nothing.',
    errors: refusals('AddCategories'),
    args: {
      input: t.arg({
        required: true,
        description: 'What to do; see the input type.',
        type: builder.inputType('AddCategoriesInput', {
          description: 'Categories to add.',
          fields: (f) => ({ names: f.stringList({ required: true, description: 'The new category names.' }) }),
        }),
      }),
    },
    resolve: audited(async (_root, { input }, context) => ({ categories: await addCategories(context, context.actor, input.names) })),
  }),
  retireCategory: t.field({
    authScopes: requires('Mutation', 'retireCategory', 'manageCategories'),
    type: CategoryPayload,
    description: 'Stops a category being proposed or chosen. Items that already use it keep it.',
    errors: refusals('RetireCategory'),
    args: {
      input: t.arg({
        required: true,
        description: 'What to do; see the input type.',
        type: builder.inputType('RetireCategoryInput', {
          description: 'The category to retire.',
          fields: (f) => ({ name: f.string({ required: true, description: 'Its name.' }) }),
        }),
      }),
    },
    resolve: audited(async (_root, { input }, context) => ({ category: await retireCategory(context, context.actor, input.name) })),
  }),
  addItem: t.field({
    authScopes: requires('Mutation', 'addItem', 'addItem'),
    type: AddItemPayload,
    description: 'Adds one proposal to the queue.',
    errors: refusals('AddItem'),
    args: { input: t.arg({ type: AddItemInput, required: true, description: 'The proposal.' }) },
    resolve: audited(async (_root, { input }, context) => ({ item: await addItem(context, context.actor, input) })),
  }),
  addItems: t.field({
    authScopes: requires('Mutation', 'addItems', 'addItem'),
    type: AddItemsPayload,
    description: 'Adds up to 500 proposals in one transaction, with an outcome per input.',
    errors: refusals('AddItems'),
    args: {
      input: t.arg({
        required: true,
        description: 'What to do; see the input type.',
        type: builder.inputType('AddItemsInput', {
          description: 'The proposals to add.',
          fields: (f) => ({ items: f.field({ type: [AddItemInput], required: true, description: '1–500 proposals.' }) }),
        }),
      }),
    },
    resolve: audited(async (_root, { input }, context) => ({
      entries: (await addItems(context, context.actor, input.items)).map((outcome, index) => ({ ...outcome, index })),
    })),
  }),
  claimItem: t.field({
    authScopes: requires('Mutation', 'claimItem', 'claimItem'),
    type: ClaimItemPayload,
    description:
      'Leases the first claimable item (pending, and unleased or lapsed; oldest first, then batchId, recordId). ' +
      'Atomic: two claims never get the same item.',
    errors: refusals('ClaimItem'),
    args: {
      input: t.arg({
        required: true,
        description: 'What to do; see the input type.',
        type: builder.inputType('ClaimItemInput', {
          description: 'For how long, and optionally from which batch. The caller is the holder.',
          fields: (f) => ({
            leaseSeconds: f.int({ defaultValue: 300, description: 'Lease length, 30–3600 seconds (default 300).' }),
            batchId: f.string({ description: 'Only claim from this batch.' }),
            releaseOnDisconnect: f.boolean({
              defaultValue: false,
              description:
                'Only over a WebSocket: release the lease automatically when this connection closes (a crashed screen frees its item at once).',
            }),
          }),
        }),
      }),
    },
    resolve: audited(async (_root, { input }, context) => {
      if (input.releaseOnDisconnect && !context.connection) {
        throw new DomainError(
          'INVALID_ARGUMENT',
          'releaseOnDisconnect needs the claim to be sent over a WebSocket connection.',
          'releaseOnDisconnect',
        );
      }
      const claim = await claimItem(context, context.actor, { leaseSeconds: input.leaseSeconds, batchId: input.batchId });
      if (claim && input.releaseOnDisconnect) context.connection?.bindLease(claim.token);
      return { claim };
    }),
  }),
  renewLease: t.field({
    authScopes: requires('Mutation', 'renewLease', 'renewLease'),
    type: RenewLeasePayload,
    description: 'Sets the lease to expire leaseSeconds from now (not from the old expiry). Only while it is unexpired.',
    errors: refusals('RenewLease'),
    args: {
      input: t.arg({
        required: true,
        description: 'What to do; see the input type.',
        type: builder.inputType('RenewLeaseInput', {
          description: 'The lease to renew.',
          fields: (f) => ({
            token: f.string({ required: true, description: 'The token from claimItem.' }),
            leaseSeconds: f.int({ defaultValue: 300, description: 'New length from now, 30–3600 seconds (default 300).' }),
          }),
        }),
      }),
    },
    resolve: audited(async (_root, { input }, context) => ({ item: await renewLease(context, context.actor, input) })),
  }),
  releaseLease: t.field({
    authScopes: requires('Mutation', 'releaseLease', 'releaseLease'),
    type: ReleaseLeasePayload,
    description: 'Gives the item back undecided; it is claimable again at once.',
    errors: refusals('ReleaseLease'),
    args: {
      input: t.arg({
        required: true,
        description: 'What to do; see the input type.',
        type: builder.inputType('ReleaseLeaseInput', {
          description: 'The lease to release.',
          fields: (f) => ({ token: f.string({ required: true, description: 'The token from claimItem.' }) }),
        }),
      }),
    },
    resolve: audited(async (_root, { input }, context) => ({ item: await releaseLease(context, context.actor, input) })),
  }),
  decideItem: t.field({
    authScopes: requires('Mutation', 'decideItem', 'decideItem'),
    type: DecideItemPayload,
    description: 'Records the decision of the holder of an unexpired lease; the lease ends with it.',
    errors: refusals('DecideItem'),
    args: {
      input: t.arg({
        required: true,
        description: 'What to do; see the input type.',
        type: builder.inputType('DecideItemInput', {
          description: 'The lease and the decision.',
          fields: (f) => ({
            token: f.string({ required: true, description: 'The token from claimItem.' }),
            decision: f.field({ type: DecisionEnum, required: true, description: 'ACCEPTED, CORRECTED or REJECTED.' }),
            category: f.string({ description: 'The corrected category: required for CORRECTED, refused otherwise.' }),
          }),
        }),
      }),
    },
    resolve: audited(async (_root, { input }, context) => ({ item: await decideItem(context, context.actor, input) })),
  }),
}));
