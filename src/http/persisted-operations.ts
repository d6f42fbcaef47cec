// Trusted documents (PERSISTED_OPERATIONS): operations sent by the hash of a document in a manifest, the
// codegen client preset's persisted-documents.json ({ "sha256:<hex>": "<document>" }). `allow` (the default)
// runs them beside any other document; `require` runs only them, except for ADMINs (GraphiQL stays usable);
// `off` does not know them. HTTP (POST, GET, server-sent events) goes through Yoga's plugin; WebSocket
// subscribes are checked the same way by `documentOnSocket` (graphql-ws needs the text in every subscribe,
// so a client sends its text and the hash, and the server runs the manifest's text for that hash).
import { readFileSync } from 'node:fs';
import { usePersistedOperations } from '@graphql-yoga/plugin-persisted-operations';
import { GraphQLError } from 'graphql';
import type { GraphQLParams, Plugin } from 'graphql-yoga';
import type { Principal } from '../domain/access.js';

export type PersistedOperationsMode = 'off' | 'allow' | 'require';

/** Documents by hash (lowercase hex, without the `sha256:` prefix). */
export type Manifest = ReadonlyMap<string, string>;

/** Reads manifests (`{ "sha256:<hex>": "<document>" }`, or without the prefix) into one; a file that does not parse fails the start. */
export function loadManifests(files: readonly string[]): Manifest {
  const documents = new Map<string, string>();
  for (const file of files) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(readFileSync(file, 'utf8'));
    } catch (error) {
      throw new Error(`Cannot read the persisted-operations manifest ${file}: ${error instanceof Error ? error.message : String(error)}`);
    }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
      throw new Error(`The persisted-operations manifest ${file} must be a JSON object of hash → document.`);
    }
    for (const [key, document] of Object.entries(parsed)) {
      if (typeof document !== 'string')
        throw new Error(`The persisted-operations manifest ${file} holds a non-string document under ${key}.`);
      documents.set(hashOf(key), document);
    }
  }
  return documents;
}

function hashOf(key: string): string {
  return key.replace(/^sha256:/, '').toLowerCase();
}

/** The hash a request names: `extensions.persistedQuery.sha256Hash` (Apollo's form) or `documentId` (GraphQL over HTTP's). */
export function persistedId(params: { extensions?: unknown; documentId?: unknown }): string | null {
  if (typeof params.documentId === 'string') return hashOf(params.documentId);
  const persisted = (params.extensions as { persistedQuery?: { version?: unknown; sha256Hash?: unknown } } | undefined)?.persistedQuery;
  return persisted?.version === 1 && typeof persisted.sha256Hash === 'string' ? hashOf(persisted.sha256Hash) : null;
}

const MESSAGES = {
  notFound: 'No trusted document has this hash: send one from the manifest the server was started with.',
  only: 'This server runs only its trusted documents (PERSISTED_OPERATIONS=require): send the document’s hash as extensions.persistedQuery.sha256Hash.',
  idRequired: 'Send a query or the hash of a trusted document (extensions.persistedQuery.sha256Hash).',
};

/** A refusal on a WebSocket (no HTTP status there). */
function refusal(message: string, code: string): GraphQLError {
  return new GraphQLError(message, { extensions: { code } });
}

/** May this caller run documents that are not in the manifest? */
function mayRunAnyDocument(mode: PersistedOperationsMode, principal: Principal | undefined): boolean {
  return mode !== 'require' || principal?.roles.has('ADMIN') === true;
}

/** Yoga's persisted-operations plugin for `mode` (none when off). `principals`: the authenticated caller per request. */
export function persistedOperations(mode: PersistedOperationsMode, manifest: Manifest, principals: WeakMap<Request, Principal>): Plugin[] {
  if (mode === 'off') return [];
  return [
    usePersistedOperations({
      getPersistedOperation: (key) => manifest.get(key) ?? null,
      extractPersistedOperationId: (params) => persistedId(params as GraphQLParams & { documentId?: unknown }),
      allowArbitraryOperations: (request) => mayRunAnyDocument(mode, principals.get(request)),
      customErrors: {
        notFound: { message: MESSAGES.notFound, extensions: { code: 'PERSISTED_QUERY_NOT_FOUND', http: { status: 400 } } },
        persistedQueryOnly: { message: MESSAGES.only, extensions: { code: 'PERSISTED_QUERY_ONLY', http: { status: 403 } } },
        keyNotFound: { message: MESSAGES.idRequired, extensions: { code: 'BAD_REQUEST', http: { status: 400 } } },
      },
    }),
  ];
}

/**
 * The document a WebSocket `subscribe` runs: the manifest's for the hash it names (whatever text came with
 * it), else its own text when this caller may run any document; a refusal otherwise.
 */
export function documentOnSocket(
  mode: PersistedOperationsMode,
  manifest: Manifest,
  params: { query: string; extensions?: unknown },
  principal: Principal | undefined,
): string | GraphQLError {
  if (mode === 'off') return params.query;
  const id = persistedId(params);
  if (id !== null) return manifest.get(id) ?? refusal(MESSAGES.notFound, 'PERSISTED_QUERY_NOT_FOUND');
  return mayRunAnyDocument(mode, principal) ? params.query : refusal(MESSAGES.only, 'PERSISTED_QUERY_ONLY');
}
