// Yoga's CSRF prevention, with a refusal that says what to send. Its own message, "Required CSRF header(s)
// not present", left a caller who had merely forgotten `content-type` guessing.
import { useCSRFPrevention } from '@graphql-yoga/plugin-csrf-prevention';
import { GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { Logger } from '../logger.js';

/** The header that marks a request as not a bare cross-site one (any value). */
export const CSRF_HEADER = 'x-graphql-yoga-csrf';

export const CSRF_MESSAGE =
  `A browser could send this request from another site without asking first, so it is refused: ` +
  `send a POST with "content-type: application/json", or add the header "${CSRF_HEADER}" (any value) ` +
  `to a GET or to a form or text body.`;

/** A refusal is a client's mistake: one info line ("refused a request"), as Yoga's own refusals get. */
export function csrfPrevention(logger: Logger): Plugin {
  const check = useCSRFPrevention({ requestHeaders: [CSRF_HEADER] });
  return {
    onRequestParse(payload) {
      try {
        return check.onRequestParse?.(payload);
      } catch (error) {
        if (!(error instanceof GraphQLError)) throw error;
        logger.info({ reason: error.message }, 'refused a request');
        throw new GraphQLError(CSRF_MESSAGE, { extensions: { ...error.extensions, code: 'CSRF_HEADER_REQUIRED' } });
      }
    },
  };
}
