// The approvals page's entry point (bundled by scripts/build-web.ts): signs in with the key this tab kept or asks
// for one, then opens the proposal queue and the open proposal's actions.
import { startSignIn } from '../shared/sign-in.js';
import { ApprovalsSession } from './approvals-session.js';

startSignIn({
  viewId: 'approvals',
  focusId: 'approvals-title',
  open: (key, refused) => new ApprovalsSession(key, refused),
});
