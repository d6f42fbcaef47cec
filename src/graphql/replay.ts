// The replay argument of the event subscriptions: `afterSequence` (a sequence number; `after` is a cursor on
// connections), with `after` kept one release as its deprecated name.
import { DomainError } from '../domain/errors.js';
import { aliased } from './aliases.js';

export const AFTER_DESCRIPTION =
  'Replay every stored event with a greater sequence first, then continue live, with no gap and no duplicate. Omit to start live.';

/** The sequence to replay after: `afterSequence`, or `after`, its deprecated name. */
export function checkAfter(args: { afterSequence?: number | null; after?: number | null }): number | null {
  const after = aliased(args.afterSequence, args.after, 'afterSequence', 'after');
  if (after == null) return null;
  if (!Number.isSafeInteger(after) || after < 0) {
    throw new DomainError('INVALID_ARGUMENT', 'afterSequence must be a sequence number ≥ 0.', 'afterSequence');
  }
  return after;
}
