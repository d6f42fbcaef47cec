// What every page's signed-in view needs from the page itself: where the API is, whether the server takes trusted
// documents by hash, the problem line, and how a mutation's typed refusal looks.
import { byId } from './dom.js';

export const ENDPOINT = new URL('graphql', window.location.href);

/** Whether the server takes trusted documents by hash: the page says so (src/web-pages.ts writes PERSISTED_OPERATIONS). */
export const PERSISTED_OPERATIONS =
  (document.querySelector('meta[name="leasehold-persisted-operations"]')?.getAttribute('content') ?? 'off') !== 'off';

/** Shows a problem in the page's #problem alert; null clears it. */
export function showProblem(message: string | null): void {
  const box = byId('problem');
  box.textContent = message ?? '';
  box.hidden = message === null;
}

/** A mutation's typed refusal (UserError). */
export interface Refusal {
  __typename: 'UserError';
  code: string;
  message: string;
}

export const isRefusal = (value: { __typename: string }): value is Refusal => value.__typename === 'UserError';
