// The header's connection line and the offline banner: what the page tells the viewer about its link to the server.
import type { ConnectionState } from './api.js';
import { byId } from './dom.js';

const line = byId('connection');
const offline = byId('offline');

/** Shows the live connection's state; a refusal only marks the page, since signing in again takes over. */
export function showConnection(state: ConnectionState): void {
  document.body.dataset.connection = state.kind;
  switch (state.kind) {
    case 'connecting':
      line.textContent = 'Connecting…';
      break;
    case 'live':
      line.textContent = 'Live';
      offline.hidden = true;
      break;
    case 'reconnecting':
      line.textContent = `Disconnected — reconnecting (attempt ${state.attempt})…`;
      offline.hidden = false;
      break;
    case 'refused':
      break;
  }
}

export function showCheckingKey(): void {
  line.textContent = 'Checking the key…';
}

export function showSignedOut(): void {
  offline.hidden = true;
  document.body.dataset.connection = 'signed-out';
  line.textContent = 'Not connected';
}
