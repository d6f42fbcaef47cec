// How many live streams one caller may hold open: per WebSocket connection and per principal (all its
// connections and server-sent-event streams in this process). Every stream holds a buffer and a share of
// each event's fan-out, so 5,000 of them on one socket would take the whole server with them.
import SchemaBuilder, { BasePlugin, type PothosOutputFieldConfig, type SchemaTypes } from '@pothos/core';
import { GraphQLError, type GraphQLFieldResolver } from 'graphql';
import type { Live } from '../events/live.js';
import type { GraphQLContext } from './context.js';
import { checkListArguments } from './list-limits.js';

export interface SubscriptionLimits {
  /** Open subscriptions on one WebSocket connection. */
  perConnection: number;
  /** Open subscriptions of one principal in this process, over every transport. */
  perPrincipal: number;
}

export const DEFAULT_SUBSCRIPTION_LIMITS: SubscriptionLimits = { perConnection: 100, perPrincipal: 500 };

/** The open subscriptions of one app, by connection and by principal. */
class SubscriptionSlots {
  private readonly byConnection = new WeakMap<object, number>();
  private readonly byPrincipal = new Map<string, number>();
  constructor(readonly limits: SubscriptionLimits) {}

  /** Takes a slot for a new subscription, or refuses it with SUBSCRIPTION_LIMIT_REACHED; the function returned gives it back. */
  take(principal: string, connection: object | null): () => void {
    const onConnection = connection ? (this.byConnection.get(connection) ?? 0) : 0;
    const ofPrincipal = this.byPrincipal.get(principal) ?? 0;
    if (connection && onConnection >= this.limits.perConnection) {
      throw refusal(
        `This connection already has ${onConnection} open subscriptions, the most one connection may hold.`,
        this.limits.perConnection,
      );
    }
    if (ofPrincipal >= this.limits.perPrincipal) {
      throw refusal(
        `${principal} already has ${ofPrincipal} open subscriptions, the most one principal may hold.`,
        this.limits.perPrincipal,
      );
    }
    if (connection) this.byConnection.set(connection, onConnection + 1);
    this.byPrincipal.set(principal, ofPrincipal + 1);
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      if (connection) this.byConnection.set(connection, (this.byConnection.get(connection) ?? 1) - 1);
      const left = (this.byPrincipal.get(principal) ?? 1) - 1;
      if (left > 0) this.byPrincipal.set(principal, left);
      else this.byPrincipal.delete(principal);
    };
  }
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
function heldUntilEnd(source: AsyncIterable<unknown>, release: () => void): AsyncIterator<unknown> {
  const iterator = source[Symbol.asyncIterator]();
  const stream: AsyncIterator<unknown> = new Proxy(iterator, {
    get(target, property) {
      if (property === Symbol.asyncIterator) return () => stream;
      if (property === 'next') {
        return (...args: []) =>
          target.next(...args).then(
            (step) => {
              if (step.done) release();
              return step;
            },
            (error: unknown) => {
              release();
              throw error;
            },
          );
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
    const release = slotsOf(live).take(principal.name, connection);
    try {
      const source = subscribe(parent, args, context, info) as AsyncIterable<unknown> | Promise<AsyncIterable<unknown>>;
      if (!(source instanceof Promise)) return heldUntilEnd(source, release);
      return source.then(
        (stream) => heldUntilEnd(stream, release),
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
