// Signing in and out: checks an API key with the server, keeps it for the tab's life, and shows either the
// sign-in panel or the signed-in view (one Session at a time).
import { RefusedError } from './api.js';
import { showCheckingKey, showSignedOut } from './connection-status.js';
import { byId } from './dom.js';
import { Session } from './session.js';

/** sessionStorage: the key lives as long as the tab, and is never written to disk for later visits. */
const KEY_STORAGE = 'leasehold.dashboard.apiKey';

const who = byId('who');
const viewerName = byId('viewer-name');
const signOutButton = byId<HTMLButtonElement>('sign-out');
const panel = byId('sign-in');
const form = byId<HTMLFormElement>('sign-in-form');
const errorLine = byId('sign-in-error');
const keyInput = byId<HTMLInputElement>('api-key');
const dashboard = byId('dashboard');

let session: Session | null = null;

/** The signed-in view, or null while the page asks for a key. */
export function currentSession(): Session | null {
  return session;
}

function showSignIn(message: string | null): void {
  session?.stop();
  session = null;
  dashboard.hidden = true;
  who.hidden = true;
  panel.hidden = false;
  showSignedOut();
  errorLine.textContent = message ?? '';
  errorLine.hidden = message === null;
  keyInput.value = '';
  keyInput.setAttribute('aria-invalid', message === null ? 'false' : 'true');
  keyInput.focus();
}

/** Any refusal of the key, over HTTP (401) or WebSocket (4401/4403): forget it and ask again. */
function refused(detail: string): void {
  sessionStorage.removeItem(KEY_STORAGE);
  showSignIn(`The server refused the API key. ${detail} Enter a valid key.`);
}

async function signIn(key: string, stored: boolean): Promise<void> {
  const candidate = new Session(key, refused);
  showCheckingKey();
  try {
    const viewer = await candidate.verify();
    sessionStorage.setItem(KEY_STORAGE, key);
    session = candidate;
    panel.hidden = true;
    errorLine.hidden = true;
    keyInput.setAttribute('aria-invalid', 'false');
    viewerName.textContent = `${viewer.name} (${viewer.roles.join(', ')})`;
    who.hidden = false;
    dashboard.hidden = false;
    candidate.start();
    byId('dashboard-title').focus();
  } catch (error) {
    candidate.stop();
    if (error instanceof RefusedError) {
      sessionStorage.removeItem(KEY_STORAGE);
      showSignIn(`The server refused ${stored ? 'the saved' : 'this'} API key. ${error.message} Enter a valid key.`);
    } else {
      // The server may be restarting: keep a saved key and let the user try again.
      showSignIn(`Could not reach the server (${error instanceof Error ? error.message : String(error)}). Try again.`);
    }
  }
}

/** Signs in with the key the form was given, or signs out ("Forget key"). */
export function listenForSignIn(): void {
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
    sessionStorage.removeItem(KEY_STORAGE);
    showSignIn(null);
  });
}

/** Signs in with the key this tab kept, or asks for one. */
export function resumeSignIn(): void {
  const saved = sessionStorage.getItem(KEY_STORAGE);
  if (saved) void signIn(saved, true);
  else showSignIn(null);
}
