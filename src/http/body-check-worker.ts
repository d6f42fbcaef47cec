// The worker thread of src/http/body-checks.ts: parses a large request body or WebSocket message and
// looks for a variable holding an over-long list (the same check as the listVariables plugin), so the
// parse of a 2 MB body, and the garbage it leaves, never hold the server's event loop.
import { parentPort, workerData } from 'node:worker_threads';
import { buildSchema, type DocumentNode, parse } from 'graphql';
import { variableListsRefusal } from '../graphql/list-limits.js';
import type { BodyCheckReply, BodyCheckRequest } from './body-checks.js';

/** The API's input types, from its SDL: all the check needs (no resolvers). */
const schema = buildSchema((workerData as { sdl: string }).sdl);

interface Operation {
  query?: unknown;
  operationName?: unknown;
  variables?: unknown;
}

/** The operations a body carries: one, a batch, or a graphql-ws `subscribe` message's payload. */
function operationsOf(body: unknown, kind: BodyCheckRequest['kind']): { operations: Operation[]; messageId: string | null } {
  if (body === null || typeof body !== 'object') return { operations: [], messageId: null };
  if (kind === 'http') return { operations: (Array.isArray(body) ? body : [body]) as Operation[], messageId: null };
  const message = body as { id?: unknown; type?: unknown; payload?: unknown };
  if (message.type !== 'subscribe' || typeof message.id !== 'string' || message.payload === null || typeof message.payload !== 'object') {
    return { operations: [], messageId: null };
  }
  return { operations: [message.payload as Operation], messageId: message.id };
}

function check({ id, bytes, kind }: BodyCheckRequest): BodyCheckReply {
  let body: unknown;
  try {
    body = JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    // Not JSON: the usual path answers that, at the cost of a failed parse.
    return { id, refusal: null, messageId: null };
  }
  const { operations, messageId } = operationsOf(body, kind);
  for (const operation of operations) {
    if (operation === null || typeof operation !== 'object' || typeof operation.query !== 'string') continue;
    let document: DocumentNode;
    try {
      document = parse(operation.query, { noLocation: true });
    } catch {
      continue;
    }
    const operationName = typeof operation.operationName === 'string' ? operation.operationName : null;
    const refusal = variableListsRefusal(schema, document, operationName, operation.variables);
    if (refusal) {
      const { http: _http, ...extensions } = refusal.extensions as Record<string, unknown>;
      return { id, refusal: { message: refusal.message, extensions }, messageId };
    }
  }
  return { id, refusal: null, messageId };
}

parentPort?.on('message', (request: BodyCheckRequest) => {
  parentPort?.postMessage(check(request));
});
