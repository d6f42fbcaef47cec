// Relay connection arguments → keyset page requests on ids, with opaque cursors.
import { parseCursorConnectionArgs } from '@pothos/plugin-relay';
import { DomainError } from '../domain/errors.js';
import { LIMITS } from '../domain/validation.js';
import type { PageRequest } from '../services/queries.js';

export interface ConnectionArgs {
  first?: number | null;
  last?: number | null;
  after?: string | null;
  before?: string | null;
}

export function encodeCursor(id: number): string {
  return Buffer.from(`c:${id}`).toString('base64url');
}

function decodeCursor(cursor: string | undefined, field: string): number | null {
  if (cursor === undefined) return null;
  const match = /^c:(\d{1,15})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!match?.[1]) throw new DomainError('INVALID_ARGUMENT', `${field} is not a cursor this API issued.`, field);
  return Number(match[1]);
}

/** Validates the Relay arguments (page size 0–100) and turns them into a keyset page. */
export function pageRequest(
  args: ConnectionArgs,
): PageRequest & { expectedSize: number; hasPreviousPage(n: number): boolean; hasNextPage(n: number): boolean } {
  for (const field of ['first', 'last'] as const) {
    const value = args[field];
    if (value != null && (value < 0 || value > LIMITS.maxPageSize)) {
      throw new DomainError('INVALID_ARGUMENT', `${field} must be from 0 to ${LIMITS.maxPageSize}.`, field);
    }
  }
  if (args.first != null && args.last != null) {
    throw new DomainError('INVALID_ARGUMENT', 'Pass either first or last, not both.', 'last');
  }
  const parsed = parseCursorConnectionArgs({ args, defaultSize: 20, maxSize: LIMITS.maxPageSize });
  return {
    ...parsed,
    afterId: decodeCursor(parsed.after, 'after'),
    beforeId: decodeCursor(parsed.before, 'before'),
  };
}

/** Builds a Relay connection from one page of rows fetched with `limit + 1`. */
export async function resolveConnection<T extends { id: number }>(args: ConnectionArgs, fetch: (page: PageRequest) => Promise<T[]>) {
  const page = pageRequest(args);
  const rows = await fetch({ ...page, limit: page.limit });
  const trimmed = rows.slice(0, page.expectedSize);
  const ordered = page.inverted ? trimmed.reverse() : trimmed;
  const edges = ordered.map((node) => ({ cursor: encodeCursor(node.id), node }));
  return {
    edges,
    pageInfo: {
      startCursor: edges[0]?.cursor ?? null,
      endCursor: edges.at(-1)?.cursor ?? null,
      hasPreviousPage: page.hasPreviousPage(rows.length),
      hasNextPage: page.hasNextPage(rows.length),
    },
  };
}
