// Signing in and out, for every page: checks an API key (or a JWT) with the server, keeps it for the tab's life,
// and shows either the sign-in panel or the page's signed-in view (one at a time). The pages share the element ids
// (sign-in, sign-in-form, sign-in-error, api-key, who, viewer-name, sign-out; connection and offline, see
// connection-status.ts) and differ in the view they open.
import { RefusedError } from './api.js';
import { showCheckingKey, showSignedOut } from './connection-status.js';
import { byId } from './dom.js';

export interface Viewer {
  name: string;
  roles: string[];
}

/** One signed-in view of a page. */
export interface SignedInView {
  /** Checks the key with one request; rejects with RefusedError for a refused key. */
  verify(): Promise<Viewer>;
  start(viewer: Viewer): void;
  /** Ends every request, subscription and timer the view started. */
  stop(): void;
}

/**
 * sessionStorage: the credential lives as long as the tab, and is never written to disk for later visits. One key for
 * every page, so a link from one page to another (the dashboard's "to reconcile" to /approvals) stays signed in.
 */
const STORAGE_KEY = 'leasehold.apiKey';

export interface SignInOptions<V extends SignedInView> {
  /** The element shown while signed in, and the one focused then. */
  viewId: string;
  focusId: string;
  /** Opens a view with `key`; `refused` is called when the server refuses it later (HTTP 401, WebSocket 4401/4403). */
  open(key: string, refused: (detail: string) => void): V;
}

/** Wires the sign-in form and "Forget key", and signs in with the key this tab kept or asks for one. */
export function startSignIn<V extends SignedInView>(options: SignInOptions<V>): { current(): V | null } {
  const who = byId('who');
  const viewerName = byId('viewer-name');
  const signOutButton = byId<HTMLButtonElement>('sign-out');
  const panel = byId('sign-in');
  const form = byId<HTMLFormElement>('sign-in-form');
  const errorLine = byId('sign-in-error');
  const keyInput = byId<HTMLInputElement>('api-key');
  const view = byId(options.viewId);
  let session: V | null = null;

  const showSignIn = (message: string | null): void => {
    session?.stop();
    session = null;
    view.hidden = true;
    who.hidden = true;
    panel.hidden = false;
    showSignedOut();
    errorLine.textContent = message ?? '';
    errorLine.hidden = message === null;
    keyInput.value = '';
    keyInput.setAttribute('aria-invalid', message === null ? 'false' : 'true');
    keyInput.focus();
  };

  /** Any refusal of the key, over HTTP (401) or WebSocket (4401/4403): forget it and ask again. */
  const refused = (detail: string): void => {
    sessionStorage.removeItem(STORAGE_KEY);
    showSignIn(`The server refused the API key. ${detail} Enter a valid key.`);
  };

  const signIn = async (key: string, stored: boolean): Promise<void> => {
    const candidate = options.open(key, refused);
    showCheckingKey();
    try {
      const viewer = await candidate.verify();
      sessionStorage.setItem(STORAGE_KEY, key);
      session = candidate;
      panel.hidden = true;
      errorLine.hidden = true;
      keyInput.setAttribute('aria-invalid', 'false');
      viewerName.textContent = `${viewer.name} (${viewer.roles.join(', ')})`;
      who.hidden = false;
      view.hidden = false;
      candidate.start(viewer);
      byId(options.focusId).focus();
    } catch (error) {
      candidate.stop();
      if (error instanceof RefusedError) {
        sessionStorage.removeItem(STORAGE_KEY);
        showSignIn(`The server refused ${stored ? 'the saved' : 'this'} API key. ${error.message} Enter a valid key.`);
      } else {
        // The server may be restarting: keep a saved key and let the user try again.
        showSignIn(`Could not reach the server (${error instanceof Error ? error.message : String(error)}). Try again.`);
      }
    }
  };

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const key = keyInput.value.trim();
    if (!key) {
      showSignIn('Enter an API key.');
      return;
    }
    void signIn(key, false);
  });
  signOutButton.addEventListener('click', () => {
    sessionStorage.removeItem(STORAGE_KEY);
    showSignIn(null);
  });

  const saved = sessionStorage.getItem(STORAGE_KEY);
  if (saved) void signIn(saved, true);
  else showSignIn(null);
  return { current: () => session };
}
