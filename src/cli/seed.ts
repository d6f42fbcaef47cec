// Seed A's seven commands on a Leasehold database. Each runs seed A's checks in seed A's order —
// arguments, then text/token/category arguments (with the domain's own validators), then the
// database — and does the work through the same services the GraphQL API uses, so the history
// and the server's subscribers see a command-line change exactly as they see any other.
import { closeSync, constants, openSync, readSync, statSync } from 'node:fs';
import { Socket } from 'node:net';
import { isatty, ReadStream } from 'node:tty';
import type { Item } from '../db/client.js';
import { claimState } from '../domain/lease.js';
import { checkDecisionArguments, type Decision } from '../domain/review.js';
import { LIMITS, validateToken } from '../domain/validation.js';
import type { Namespace } from './argparse.js';
import { argumentText } from './argument-bytes.js';
import { cliActor, createNew, type OpenDatabase, withDatabase as withExisting } from './database.js';
import { CliError } from './output.js';
import { pythonJsonLoads, pythonPath } from './python.js';

type Result = Record<string, unknown>;

// The services (and with them Prisma) load only once the arguments have passed: a rejected command
// line answers without paying for the database layer.
const services = {
  categories: () => import('../services/categories.js'),
  decisions: () => import('../services/decisions.js'),
  items: () => import('../services/items.js'),
  leases: () => import('../services/leases.js'),
  queries: () => import('../services/queries.js'),
};

/** Seed A's times are whole epoch seconds. */
const seconds = (date: Date | null): number | null => (date === null ? null : Math.floor(date.getTime() / 1000));

const MAX_CLAIM_FILE_BYTES = 16_384;

/**
 * Reads at most `limit` bytes from a FIFO, socket or terminal, waiting for a writer and for data as
 * Python would, but without blocking the process: a blocked read (or a FIFO's open(), which waits for
 * a writer) would keep Ctrl+C from being reported, and Node cannot exit while a thread is blocked.
 */
function readStream(file: string, limit: number, terminal: boolean): Promise<Buffer> {
  const fd = openSync(file, terminal ? constants.O_RDONLY : constants.O_RDONLY | constants.O_NONBLOCK);
  const socket = terminal ? new ReadStream(fd) : new Socket({ fd, readable: true, writable: false });
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = () => {
      socket.destroy();
      resolve(Buffer.concat(chunks).subarray(0, limit));
    };
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.length;
      if (size >= limit) finish();
    });
    socket.once('end', finish);
    socket.once('error', (error) => {
      socket.destroy();
      reject(error);
    });
  });
}

/**
 * Reads at most `limit` bytes, as Python's `open('rb').read(limit)` does: files, and pipes, FIFOs or a
 * terminal (`--claim-json /dev/stdin`) read until their writer closes or the limit is reached.
 */
async function readPrefix(file: string, limit: number): Promise<Buffer> {
  const kind = statSync(file);
  if (kind.isFIFO() || kind.isSocket()) return readStream(file, limit, false);
  const fd = openSync(file, 'r');
  if (isatty(fd)) {
    closeSync(fd);
    return readStream(file, limit, true);
  }
  try {
    const buffer = Buffer.alloc(limit);
    let filled = 0;
    while (filled < limit) {
      const count = readSync(fd, buffer, filled, limit - filled, null);
      if (count === 0) break;
      filled += count;
    }
    return buffer.subarray(0, filled);
  } finally {
    closeSync(fd);
  }
}

/** Seed A's load_claim_token: --token as given, or claim_token from the --claim-json file. */
export async function loadClaimToken(args: Namespace): Promise<string> {
  if (args.token !== null) return validateToken(args.token as string);
  const file = pythonPath(args.claim_json as string);
  let data: Buffer;
  try {
    data = await readPrefix(file, MAX_CLAIM_FILE_BYTES + 1);
  } catch (error) {
    throw new CliError('claim_file_error', `Cannot read the claim file: ${(error as Error).message}`);
  }
  if (data.length > MAX_CLAIM_FILE_BYTES) throw new CliError('claim_file_error', 'The claim file is too large.');
  let payload: unknown;
  try {
    // ignoreBOM: a BOM is kept and then refused by the JSON parser, as Python's decode + json.loads do.
    payload = pythonJsonLoads(new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(data));
  } catch (error) {
    throw new CliError('claim_file_error', `The claim file is not UTF-8 JSON: ${(error as Error).message}`);
  }
  const token =
    typeof payload === 'object' && payload !== null && !Array.isArray(payload) && Object.hasOwn(payload, 'claim_token')
      ? (payload as Record<string, unknown>).claim_token
      : undefined;
  if (typeof token !== 'string') throw new CliError('claim_file_error', 'The claim file has no claim_token.');
  return validateToken(token);
}

function withDatabase<T>(db: string, work: (deps: OpenDatabase) => Promise<T>): Promise<T> {
  // Every seed command's services work on direct statements and db.query: no Prisma (db/lite.ts).
  return withExisting(pythonPath(db), work, 'lite');
}

async function init(args: Namespace): Promise<Result> {
  const categories = (args.category as string[]).map((name) => argumentText(name, 'category', LIMITS.category));
  if (new Set(categories).size !== categories.length) throw new CliError('duplicate_category', 'A category is listed more than once.');
  const database = pythonPath(args.db as string);
  const { addCategories } = await services.categories();
  await createNew(database, async (deps) => {
    for (let start = 0; start < categories.length; start += LIMITS.maxCategoriesPerCall) {
      await addCategories(deps, cliActor(), categories.slice(start, start + LIMITS.maxCategoriesPerCall));
    }
  });
  return { database, category_count: categories.length };
}

async function add(args: Namespace): Promise<Result> {
  const item = {
    batchId: argumentText(args.batch_id as string, 'batch_id', LIMITS.batchId),
    recordId: argumentText(args.record_id as string, 'record_id', LIMITS.recordId),
    proposedCategory: argumentText(args.proposed_category as string, 'proposed_category', LIMITS.category),
    reason: argumentText(args.reason as string, 'reason', LIMITS.reason),
  };
  const { addItem } = await services.items();
  const added = await withDatabase(args.db as string, (deps) => addItem(deps, cliActor(), item));
  return { added: true, batch_id: added.batchId, record_id: added.recordId };
}

async function claim(args: Namespace): Promise<Result> {
  const reviewer = argumentText(args.reviewer as string, 'reviewer', LIMITS.reviewer);
  const { claimItem } = await services.leases();
  const claimed = await withDatabase(args.db as string, (deps) =>
    claimItem(deps, { name: reviewer, authenticated: false }, { leaseSeconds: args.lease_seconds as number }),
  );
  if (claimed === null) return { claimed: false };
  const { item, token } = claimed;
  return {
    claimed: true,
    batch_id: item.batchId,
    record_id: item.recordId,
    proposed_category: item.proposedCategory,
    reason: item.reason,
    claimed_by: item.claimedBy,
    claimed_at: seconds(item.claimedAt),
    claim_expires_at: seconds(item.leaseExpiresAt),
    claim_token: token,
  };
}

async function renew(args: Namespace): Promise<Result> {
  const token = await loadClaimToken(args);
  const { renewLease } = await services.leases();
  const item = await withDatabase(args.db as string, (deps) =>
    renewLease(deps, cliActor(), { token, leaseSeconds: args.lease_seconds as number }),
  );
  return { renewed: true, batch_id: item.batchId, record_id: item.recordId, claim_expires_at: seconds(item.leaseExpiresAt) };
}

async function release(args: Namespace): Promise<Result> {
  const token = await loadClaimToken(args);
  const { releaseLease } = await services.leases();
  const item = await withDatabase(args.db as string, (deps) => releaseLease(deps, cliActor(), { token }));
  return { released: true, batch_id: item.batchId, record_id: item.recordId };
}

async function decide(args: Namespace): Promise<Result> {
  const token = await loadClaimToken(args);
  const decision = (args.decision as string).toUpperCase() as Decision;
  const category = args.category as string | null;
  checkDecisionArguments(decision, category);
  if (category !== null) argumentText(category, 'category', LIMITS.category);
  const { decideItem } = await services.decisions();
  const item = await withDatabase(args.db as string, (deps) => decideItem(deps, cliActor(), { token, decision, category }));
  return {
    batch_id: item.batchId,
    record_id: item.recordId,
    status: item.status.toLowerCase(),
    final_category: item.finalCategory,
    reviewed_by: item.reviewedBy,
  };
}

async function show(args: Namespace): Promise<Result> {
  const batchId = argumentText(args.batch_id as string, 'batch_id', LIMITS.batchId);
  const recordId = argumentText(args.record_id as string, 'record_id', LIMITS.recordId);
  const { findItemByKey } = await services.queries();
  const { item, now } = await withDatabase(args.db as string, async (deps) => {
    const found: Item = await findItemByKey(deps, batchId, recordId);
    return { item: found, now: deps.clock.now() };
  });
  return {
    batch_id: item.batchId,
    record_id: item.recordId,
    status: item.status.toLowerCase(),
    proposed_category: item.proposedCategory,
    final_category: item.finalCategory,
    reviewed_by: item.reviewedBy,
    claimed_by: item.claimedBy,
    claim_state: claimState(item, now).toLowerCase(),
  };
}

export const SEED_COMMANDS: Record<string, (args: Namespace) => Promise<Result>> = { init, add, claim, renew, release, decide, show };
