// Refused attempts at changes, recorded in the history with the principal who made them.
import { appendEvent } from '../db/event-store.js';
import type { DomainError } from '../domain/errors.js';
import type { Actor, ServiceDeps } from './context.js';

/** Records that `actor` attempted `operation` and was refused with `error`. Its own transaction: the attempt's was rolled back. */
export async function recordRefusal(deps: ServiceDeps, actor: Actor, operation: string, error: DomainError): Promise<void> {
  await deps.db.write(async (_tx, sql) => {
    await appendEvent(sql, {
      type: 'OPERATION_REFUSED',
      actor: actor.name,
      at: deps.clock.now(),
      details: { operation, code: error.code, field: error.field, message: error.message },
    });
  });
}
