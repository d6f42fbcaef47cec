// Large request bodies and WebSocket messages are parsed on a worker thread first. A body of up to
// MAX_BODY_BYTES (2 MiB) takes 10–20 ms to parse and leaves as much garbage to collect: five at once, all of
// them refusals (100,000 ids for nodes(ids:)), held the event loop 100–250 ms while /health and everyone
// waited. The worker refuses a body whose variables hold an over-long list (INVALID_ARGUMENT, as the
// listVariables plugin does on the event loop for small bodies) without the event loop ever parsing it;
// a body that passes is parsed again here, as before.
import { Worker } from 'node:worker_threads';
import { type GraphQLSchema, printSchema } from 'graphql';
import { createGraphQLError, type Plugin } from 'graphql-yoga';
import type { Logger } from '../logger.js';

/** Bodies and messages from this size on go to the worker first; smaller ones parse in well under a millisecond. */
export const OFF_THREAD_BYTES = 64 * 1024;
/** The longest a check may take before the body takes the usual path instead (the worker is stuck or gone). */
const CHECK_TIMEOUT_MS = 10_000;

export interface BodyCheckRequest {
  id: number;
  bytes: Uint8Array;
  /** A POST body (one operation or a batch) or a graphql-ws message. */
  kind: 'http' | 'ws';
}

export interface BodyCheckReply {
  id: number;
  refusal: { message: string; extensions: Record<string, unknown> } | null;
  /** A graphql-ws `subscribe` message's id, to answer it by. */
  messageId: string | null;
}

/** Since the process started: bodies checked on the worker, and those it refused. */
export const bodyCheckStats = { checked: 0, refused: 0 };

export class BodyChecks {
  private worker: Worker | null = null;
  private lastId = 0;
  private readonly pending = new Map<number, (reply: BodyCheckReply | null) => void>();

  constructor(
    private readonly schema: GraphQLSchema,
    private readonly logger: Logger,
  ) {}

  /**
   * The worker's verdict on `bytes` (copied to it). Null when it could not give one (it failed, or took
   * too long): the body then takes the usual path, where the same check runs on the event loop.
   */
  check(bytes: Uint8Array, kind: BodyCheckRequest['kind']): Promise<BodyCheckReply | null> {
    const worker = this.started();
    const id = ++this.lastId;
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.settle(id, null), CHECK_TIMEOUT_MS);
      timer.unref();
      this.pending.set(id, (reply) => {
        clearTimeout(timer);
        if (reply) {
          bodyCheckStats.checked++;
          if (reply.refusal) bodyCheckStats.refused++;
        }
        resolve(reply);
      });
      worker.postMessage({ id, bytes, kind } satisfies BodyCheckRequest);
    });
  }

  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = null;
    for (const id of [...this.pending.keys()]) this.settle(id, null);
    await worker?.terminate();
  }

  private settle(id: number, reply: BodyCheckReply | null): void {
    const done = this.pending.get(id);
    this.pending.delete(id);
    done?.(reply);
  }

  private started(): Worker {
    if (this.worker) return this.worker;
    const worker = spawnWorker(printSchema(this.schema));
    // It never keeps the process alive: the server's own handles do.
    worker.unref();
    worker.on('message', (reply: BodyCheckReply) => this.settle(reply.id, reply));
    const lost = (error: unknown) => {
      if (this.worker !== worker) return;
      this.worker = null;
      this.logger.error({ err: error }, 'the body-check worker stopped; large bodies are checked on the event loop until a new one starts');
      for (const id of [...this.pending.keys()]) this.settle(id, null);
    };
    worker.on('error', lost);
    worker.on('exit', (code) => lost(new Error(`exited with code ${code}`)));
    this.worker = worker;
    return worker;
  }
}

/** The worker, from the compiled module (dist) or, running from the sources (tsx, vitest), through tsx. */
function spawnWorker(sdl: string): Worker {
  const here = import.meta.url;
  const options = { workerData: { sdl }, resourceLimits: { maxOldGenerationSizeMb: 256 } };
  if (!here.endsWith('.ts')) return new Worker(new URL('./body-check-worker.js', here), options);
  const entry = new URL('./body-check-worker.ts', here).href;
  return new Worker(`import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(entry)}); })`, {
    ...options,
    eval: true,
  });
}

function isJsonRequest(request: Request): boolean {
  const type = request.headers.get('content-type')?.split(',')[0]?.split(';')[0]?.trim().toLowerCase();
  return type === 'application/json' || type === 'application/graphql+json';
}

function badRequest(message: string) {
  return createGraphQLError(message, { extensions: { http: { status: 400 }, code: 'BAD_REQUEST' } });
}

/**
 * Yoga plugin: a JSON POST of OFF_THREAD_BYTES or more is checked on the worker before it is parsed here;
 * a refused one is answered 400 with the refusal, as the listVariables plugin would have answered it.
 */
export function offThreadBodyChecks(checks: BodyChecks): Plugin {
  return {
    onRequestParse({ request, setRequestParser, fetchAPI }) {
      if (request.method !== 'POST' || !isJsonRequest(request)) return;
      if (Number(request.headers.get('content-length') ?? 0) < OFF_THREAD_BYTES) return;
      setRequestParser(async (received) => {
        const bytes = new Uint8Array(await received.arrayBuffer());
        const verdict = await checks.check(bytes, 'http');
        if (verdict?.refusal) {
          const graphqlResponse = (received.headers.get('accept') ?? '').includes('application/graphql-response+json');
          return new fetchAPI.Response(JSON.stringify({ errors: [verdict.refusal] }), {
            status: 400,
            headers: {
              'content-type': `${graphqlResponse ? 'application/graphql-response+json' : 'application/json'}; charset=utf-8`,
            },
          });
        }
        let body: unknown;
        try {
          body = JSON.parse(new TextDecoder().decode(bytes));
        } catch {
          throw badRequest('POST body sent invalid JSON.');
        }
        if (body === null || typeof body !== 'object') throw badRequest(`POST body is expected to be object but received ${body}`);
        return body as never;
      });
    },
  };
}
