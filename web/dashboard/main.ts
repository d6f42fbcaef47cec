// The dashboard page's entry point (bundled by scripts/build-web.ts): wires the filters, then signs in with the
// key this tab kept or asks for one.
import { startSignIn } from '../shared/sign-in.js';
import { onFiltersSubmitted } from './filters.js';
import { Session } from './session.js';

const signIn = startSignIn({
  viewId: 'dashboard',
  focusId: 'dashboard-title',
  open: (key, refused) => new Session(key, refused),
});
onFiltersSubmitted((filters) => signIn.current()?.applyFilters(filters));
