// The dashboard page's entry point (bundled by scripts/build-dashboard.ts): wires the sign-in form and the
// filters, then signs in with the key this tab kept or asks for one.
import { onFiltersSubmitted } from './filters.js';
import { currentSession, listenForSignIn, resumeSignIn } from './sign-in.js';

listenForSignIn();
onFiltersSubmitted((filters) => currentSession()?.applyFilters(filters));
resumeSignIn();
