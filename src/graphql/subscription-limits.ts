// How many live streams one caller may hold open: per WebSocket connection and per principal (all its
// connections and server-sent-event streams in this process). Every stream holds a buffer and a share of
// each event's fan-out, so 5,000 of them on one socket would take the whole server with them. And how
// many events a principal's streams take in one turn of the event loop, so its replays share the loop.
import SchemaBuilder, { BasePlugin, type PothosOutputFieldConfig, type SchemaTypes } from '@pothos/core';
import { GraphQLError, type GraphQLFieldResolver } from 'graphql';
import type { Live } from '../events/live.js';
import { PACE_BY, type SinkableStream } from '../events/streams.js';
import type { GraphQLContext } from './context.js';
import { checkListArguments } from './list-limits.js';

export interface SubscriptionLimits {
  /** Open subscriptions on one WebSocket connection. */
  perConnection: number;
  /** Open subscriptions of one principal in this process, over every transport. */
  perPrincipal: number;
}

export const DEFAULT_SUBSCRIPTION_LIMITS: SubscriptionLimits = { perConnection: 100, perPrincipal: 500 };

/**
 * Events one principal's streams take in one turn of the event loop; past it, each waits for the next
 * turn. Twenty streams replaying the history on one socket each read pages of 500 (src/events/streams.ts)
 * and would otherwise serialize 10,000 events between two turns, while /health and everyone else waited.
 */
export const EVENTS_PER_TURN = 200;

/** Since the process started: how often a stream's next event waited for a later turn (its principal's budget spent). */
export const pacing = { waits: 0 };

/** A principal's share of one turn of the event loop. */
class TurnBudget {
  private spent = 0;
  private nextTurn: Promise<void> | null = null;
  /** Null while this turn's budget lasts (the event is taken now), else resolves on a turn that has some. */
  wait(): Promise<void> | null {
    this.nextTurn ??= new Promise((resolve) =>
      setImmediate(() => {
        this.spent = 0;
        this.nextTurn = null;
        resolve();
      }),
    );
    if (this.spent < EVENTS_PER_TURN) {
      this.spent++;
      return null;
    }
    pacing.waits++;
    return this.nextTurn.then(() => this.wait() ?? undefined);
  }
}

/** Open subscriptions by WebSocket connection, and the limit of the app it belongs to. */
const onConnection = new WeakMap<object, { open: number; limit: number }>();

/** The open subscriptions of one app, by principal (and by connection, above). */
class SubscriptionSlots {
  private readonly byPrincipal = new Map<string, number>();
  private readonly budgets = new Map<string, TurnBudget>();
  constructor(readonly limits: SubscriptionLimits) {}

  /**
   * Takes a slot for a new subscription, or refuses it with SUBSCRIPTION_LIMIT_REACHED: gives the
   * function that gives it back, and the principal's budget of events per turn.
   */
  take(principal: string, connection: object | null): { release: () => void; budget: TurnBudget } {
    const full = connection && connectionRefusal(connection);
    if (full) throw full;
    const ofPrincipal = this.byPrincipal.get(principal) ?? 0;
    if (ofPrincipal >= this.limits.perPrincipal) {
      throw refusal(
        `${principal} already has ${ofPrincipal} open subscriptions, the most one principal may hold.`,
        this.limits.perPrincipal,
      );
    }
    const held = connection ? (onConnection.get(connection) ?? { open: 0, limit: this.limits.perConnection }) : null;
    if (connection && held) {
      held.open++;
      onConnection.set(connection, held);
    }
    this.byPrincipal.set(principal, ofPrincipal + 1);
    let budget = this.budgets.get(principal);
    if (!budget) {
      budget = new TurnBudget();
      this.budgets.set(principal, budget);
    }
    let holding = true;
    const release = () => {
      if (!holding) return;
      holding = false;
      if (held) held.open--;
      const left = (this.byPrincipal.get(principal) ?? 1) - 1;
      if (left > 0) this.byPrincipal.set(principal, left);
      else {
        this.byPrincipal.delete(principal);
        this.budgets.delete(principal);
      }
    };
    return { release, budget };
  }
}

/**
 * The refusal for one more subscription on a connection that holds its limit, or null. The WebSocket
 * server asks before any other work on a `subscribe` message (checking the credential, parsing), so a
 * client sending thousands of them costs little each.
 */
export function connectionRefusal(connection: object): GraphQLError | null {
  const held = onConnection.get(connection);
  if (!held || held.open < held.limit) return null;
  return refusal(`This connection already has ${held.open} open subscriptions, the most one connection may hold.`, held.limit);
}

function refusal(message: string, limit: number): GraphQLError {
  return new GraphQLError(`${message} Complete one before starting another.`, {
    extensions: { code: 'SUBSCRIPTION_LIMIT_REACHED', limit },
  });
}

/** Per app (each has its own Live), so servers sharing a process count apart. */
const slotsByApp = new WeakMap<Live, SubscriptionSlots>();

/** Sets an app's limits (from SUBSCRIPTIONS_PER_CONNECTION and SUBSCRIPTIONS_PER_PRINCIPAL); the defaults apply until then. */
export function limitSubscriptions(live: Live, limits: SubscriptionLimits): void {
  slotsByApp.set(live, new SubscriptionSlots(limits));
}

function slotsOf(live: Live): SubscriptionSlots {
  let slots = slotsByApp.get(live);
  if (!slots) {
    slots = new SubscriptionSlots(DEFAULT_SUBSCRIPTION_LIMITS);
    slotsByApp.set(live, slots);
  }
  return slots;
}

/**
 * The source stream as it is (direct delivery looks for its sink, src/graphql/direct-delivery.ts),
 * giving its slot back when it ends, is returned (client `complete`, socket closed, credential ended) or fails.
 */
function heldUntilEnd(source: AsyncIterable<unknown>, release: () => void, budget: TurnBudget): AsyncIterator<unknown> {
  const iterator = source[Symbol.asyncIterator]();
  // Events a stream behind writes straight to its socket take the principal's budget too.
  if (PACE_BY in iterator) (iterator as SinkableStream)[PACE_BY](() => budget.wait());
  const stream: AsyncIterator<unknown> = new Proxy(iterator, {
    get(target, property) {
      if (property === Symbol.asyncIterator) return () => stream;
      if (property === 'next') {
        const step = () =>
          target.next().then(
            (result) => {
              if (result.done) release();
              return result;
            },
            (error: unknown) => {
              release();
              throw error;
            },
          );
        return () => budget.wait()?.then(step) ?? step();
      }
      if (property === 'return' || property === 'throw') {
        const end = target[property];
        if (!end) return end;
        return (value?: unknown) => {
          release();
          return end.call(target, value);
        };
      }
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return stream;
}

/**
 * Every Subscription field's `subscribe`, whatever the transport: list arguments bounded (the cost,
 * which also bounds them, is checked only as the first event executes), then a slot taken for the stream.
 */
function limitedSubscribe<Context>(
  subscribe: GraphQLFieldResolver<unknown, Context, object>,
): GraphQLFieldResolver<unknown, Context, object> {
  return (parent, args, context, info) => {
    const field = info.parentType.getFields()[info.fieldName];
    if (field) checkListArguments(field, args as Record<string, unknown>);
    const { live, principal, connection } = context as unknown as GraphQLContext;
    const { release, budget } = slotsOf(live).take(principal.name, connection);
    try {
      const source = subscribe(parent, args, context, info) as AsyncIterable<unknown> | Promise<AsyncIterable<unknown>>;
      if (!(source instanceof Promise)) return heldUntilEnd(source, release, budget);
      return source.then(
        (stream) => heldUntilEnd(stream, release, budget),
        (error: unknown) => {
          release();
          throw error;
        },
      );
    } catch (error) {
      release();
      throw error;
    }
  };
}

class SubscriptionLimitsPlugin<Types extends SchemaTypes> extends BasePlugin<Types> {
  override wrapSubscribe(
    subscribe: GraphQLFieldResolver<unknown, Types['Context'], object> | undefined,
    fieldConfig: PothosOutputFieldConfig<Types>,
  ): GraphQLFieldResolver<unknown, Types['Context'], object> | undefined {
    return subscribe && fieldConfig.kind === 'Subscription' ? limitedSubscribe(subscribe) : subscribe;
  }
}

export const SUBSCRIPTION_LIMITS_PLUGIN = 'subscriptionLimits';

declare global {
  export namespace PothosSchemaTypes {
    export interface Plugins<Types extends SchemaTypes> {
      subscriptionLimits: SubscriptionLimitsPlugin<Types>;
    }
  }
}

SchemaBuilder.registerPlugin(SUBSCRIPTION_LIMITS_PLUGIN, SubscriptionLimitsPlugin);
