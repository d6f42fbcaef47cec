// API key revocations read from the event feed, so a key revoked by any process stops working in this one.
import type { FeedObserver } from '../events/feed.js';

/** A feed observer that calls `revoked` with the id of each API key the batch revokes. */
export function onKeyRevoked(revoked: (keyId: number) => void): FeedObserver {
  return (events) => {
    for (const event of events) {
      if (event.type !== 'API_KEY_REVOKED') continue;
      const keyId = (JSON.parse(event.details) as { keyId?: number }).keyId;
      if (typeof keyId === 'number') revoked(keyId);
    }
  };
}
