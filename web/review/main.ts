// The reviewer's page's entry point (bundled by scripts/build-web.ts): signs in with the key this tab kept or
// asks for one, then opens the review view (claim, decide, renew, release, live lease notices).
import { startSignIn } from '../shared/sign-in.js';
import { ReviewSession } from './review-session.js';

startSignIn({
  viewId: 'review',
  focusId: 'review-title',
  open: (key, refused) => new ReviewSession(key, refused),
});
