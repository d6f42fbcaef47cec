// A minimal GraphQL-over-HTTP client for Leasehold (fetch only), shared by the example executor and the reconcile helper.

/** Leasehold answered and refused: a `UserError` payload or a GraphQL error (e.g. FORBIDDEN). Repeating will not help. */
export class LeaseholdRefusal extends Error {
  constructor(
    message: string,
    readonly code: string,
    readonly field: string | null = null,
  ) {
    super(`${code}: ${message}`);
    this.name = 'LeaseholdRefusal';
  }
}

/**
 * No usable answer (network error, timeout, 5xx, internal error): the request may or may not have
 * been applied. Safe to repeat only for requests that are themselves safe to repeat.
 */
export class LeaseholdUnavailable extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'LeaseholdUnavailable';
  }
}

export interface LeaseholdClient {
  /** Runs a query or mutation and returns `data`; GraphQL errors become LeaseholdRefusal or LeaseholdUnavailable. */
  request<T>(query: string, variables?: Record<string, unknown>): Promise<T>;
  /** Runs a mutation whose result `field` is `Payload | UserError` (select `__typename`); a UserError is thrown as LeaseholdRefusal. */
  mutate<T>(field: string, query: string, variables?: Record<string, unknown>): Promise<T>;
}

interface GraphQLBody {
  data?: Record<string, unknown> | null;
  errors?: { message: string; extensions?: { code?: unknown } }[];
}

export function leaseholdClient(options: { url: string; key: string; timeoutMs?: number }): LeaseholdClient {
  const endpoint = `${options.url.replace(/\/+$/, '')}/graphql`;
  const timeoutMs = options.timeoutMs ?? 10_000;

  async function request<T>(query: string, variables: Record<string, unknown> = {}): Promise<T> {
    let response: Response;
    let body: GraphQLBody | null;
    try {
      response = await fetch(endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${options.key}` },
        body: JSON.stringify({ query, variables }),
        signal: AbortSignal.timeout(timeoutMs),
      });
      body = (await response.json().catch(() => null)) as GraphQLBody | null;
    } catch (error) {
      throw new LeaseholdUnavailable(`Leasehold did not answer: ${describeError(error)}`, { cause: error });
    }
    const first = body?.errors?.[0];
    const code = typeof first?.extensions?.code === 'string' ? first.extensions.code : null;
    // A masked internal error may come after the change was committed: not a refusal. Rate limiting
    // (429) refused the request whole and passes with time: not a refusal either.
    if (response.status >= 500 || response.status === 429 || code === 'INTERNAL_SERVER_ERROR') {
      throw new LeaseholdUnavailable(`Leasehold answered HTTP ${response.status}${first ? `: ${first.message}` : ''}`);
    }
    if (first) throw new LeaseholdRefusal(first.message, code ?? 'GRAPHQL_ERROR');
    if (!response.ok || !body?.data) throw new LeaseholdUnavailable(`Leasehold answered HTTP ${response.status} without data`);
    return body.data as T;
  }

  return {
    request,
    async mutate<T>(field: string, query: string, variables: Record<string, unknown> = {}): Promise<T> {
      const data = await request<Record<string, unknown>>(query, variables);
      const result = data[field] as { __typename?: string; code?: string; message?: string; field?: string | null } | undefined;
      if (!result) throw new LeaseholdUnavailable(`Leasehold's answer has no ${field}`);
      if (result.__typename === 'UserError') {
        throw new LeaseholdRefusal(result.message ?? 'refused', result.code ?? 'USER_ERROR', result.field ?? null);
      }
      return result as T;
    },
  };
}

/** One line for logs: the message plus the low-level cause fetch hides ("fetch failed" → ECONNREFUSED, timeout…). */
export function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? ` (${(error.cause as NodeJS.ErrnoException).code ?? error.cause.message})` : '';
  return `${error.name === 'Error' || error.name === 'TypeError' ? '' : `${error.name}: `}${error.message}${cause}`;
}
