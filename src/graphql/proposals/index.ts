// GraphQL for action proposals (seed B): registers the Proposal node, its queries, the mutations of
// every lifecycle stage (intake, review, execution, recovery) and the proposal event stream.
// Imported once, for these registrations, by src/graphql/schema.ts.
import './queries.js';
import './intake.js';
import './review.js';
import './execution.js';
import './recovery.js';
import './oversight.js';
import './after-review.js';

export { ProposalRef } from './types.js';
