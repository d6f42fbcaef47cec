// API keys: made by administrators (or on the first start of a new database), shown once,
// stored as SHA-256, revocable. Each change is recorded in the history.
import { createHash, randomBytes } from 'node:crypto';
import type { ApiKey } from '../db/client.js';
import { appendEvent } from '../db/event-store.js';
import { apiKeyFromJson, type CallAnswer } from '../db/write-calls.js';
import { formatRoles, isRole, isServerName, ROLE_NAMES, type Role } from '../domain/access.js';
import { DomainError } from '../domain/errors.js';
import { LIMITS, validateText } from '../domain/validation.js';
import type { Actor, ServiceDeps } from './context.js';

/** Every key starts with this, so secret scanners and people can recognise one. */
export const API_KEY_PREFIX = 'lhk_';
/** 256 random bits, URL-safe base64: 43 characters after the prefix. */
const API_KEY_SHAPE = /^lhk_[A-Za-z0-9_-]{43}$/;
/**
 * How much of the key listings show (ADMINs only): the fixed `lhk_` and 8 characters of the secret.
 * The history, which every role reads, names a key by its id and never carries any of it.
 */
const SHOWN_PREFIX_LENGTH = 12;

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

export function looksLikeApiKey(value: string): boolean {
  return API_KEY_SHAPE.test(value);
}

export function validateRoles(roles: readonly string[], field = 'roles'): Role[] {
  const valid = roles.filter(isRole);
  if (roles.length === 0 || valid.length !== roles.length) {
    throw new DomainError('INVALID_ROLE', `roles must be a non-empty list of ${ROLE_NAMES.join(', ')}.`, field);
  }
  return [...new Set(valid)].sort();
}

export interface IssuedApiKey {
  /** The secret itself, shown to the caller once. */
  key: string;
  record: ApiKey;
}

/**
 * Makes a key for the principal `name` with `roles`. A key acts as its name: it holds that name's leases,
 * its proposals and its history. So a name any key (even a revoked one) already has is refused unless the
 * administrator says the new key is the same principal (`samePrincipal`): otherwise a second team's key
 * would quietly take over the first one's leases. The history then names the keys it shares the name with.
 */
export async function createApiKey(
  deps: ServiceDeps,
  actor: Actor,
  input: { name: string; roles: readonly string[]; samePrincipal?: boolean },
): Promise<IssuedApiKey> {
  const name = validateText(input.name, 'name', LIMITS.reviewer);
  // As a JWT may not claim them (auth/authenticator.ts): a key named "system" would pass its changes off as the server's.
  if (isServerName(name)) {
    throw new DomainError(
      'RESERVED_NAME',
      `"${name}" is a name the server records its own changes under (system, cli, cli:<user>): no key may act as it, even as the same principal; choose another name.`,
      'name',
    );
  }
  const roles = validateRoles(input.roles);
  const nameTaken = (sharing: readonly number[]) =>
    new DomainError(
      'PRINCIPAL_NAME_TAKEN',
      `${sharing.length === 1 ? 'API key' : 'API keys'} ${sharing.join(', ')} already ${sharing.length === 1 ? 'acts' : 'act'} as "${name}": a new key with this name would act as the same principal (its leases, proposals and history). Say so with samePrincipal (--same-principal), or choose another name.`,
      'name',
    );
  const secret = newSecret();
  // PostgreSQL: one statement under the write lock (leasehold_key_create), not an interactive transaction.
  const issued = await deps.db.perform<IssuedApiKey | null>({
    work: async (tx, sql) => {
      const sharing = (await tx.apiKey.findMany({ where: { name }, select: { id: true }, orderBy: { id: 'asc' } })).map((key) => key.id);
      if (sharing.length > 0 && input.samePrincipal !== true) throw nameTaken(sharing);
      return issue(tx, sql, deps.clock.now(), actor, name, roles, secret, sharing);
    },
    call: {
      fields: keyCreateCall(actor, name, roles, secret, { samePrincipal: input.samePrincipal === true, onlyIfNone: false }),
      clock: deps.clock,
      answer: (answer) => {
        if (answer.refusal === 'PRINCIPAL_NAME_TAKEN') throw nameTaken(answer.sharing ?? []);
        return issuedFrom(answer, secret);
      },
    },
  });
  if (!issued) throw new Error('No key was made.');
  return issued;
}

/**
 * On a database that has never had a key, makes the first administrator key and returns it;
 * otherwise null. Atomic, so two servers starting on one new file make one key between them.
 */
export async function bootstrapAdminKey(deps: ServiceDeps): Promise<IssuedApiKey | null> {
  const server = { name: 'system', authenticated: false };
  const secret = newSecret();
  return deps.db.perform({
    work: async (tx, sql) => {
      if ((await tx.apiKey.count()) > 0) return null;
      return issue(tx, sql, deps.clock.now(), server, 'admin', ['ADMIN'], secret);
    },
    call: {
      fields: keyCreateCall(server, 'admin', ['ADMIN'], secret, { samePrincipal: false, onlyIfNone: true }),
      clock: deps.clock,
      answer: (answer) => {
        if (answer.none) return null;
        const issued = issuedFrom(answer, secret);
        if (!issued) throw new Error('The first key was neither made nor found unneeded.');
        return issued;
      },
    },
  });
}

/** A new key's secret: 256 random bits after the prefix. */
function newSecret(): string {
  return `${API_KEY_PREFIX}${randomBytes(32).toString('base64url')}`;
}

function keyCreateCall(actor: Actor, name: string, roles: Role[], key: string, flags: { samePrincipal: boolean; onlyIfNone: boolean }) {
  return {
    op: 'keyCreate' as const,
    actor: actor.name,
    name,
    roles: formatRoles(roles),
    keyHash: hashApiKey(key),
    prefix: key.slice(0, SHOWN_PREFIX_LENGTH),
    ...flags,
  };
}

/** The key a create call made (null: it made none, the database having keys already). */
function issuedFrom(answer: CallAnswer, key: string): IssuedApiKey | null {
  return answer.key ? { key, record: apiKeyFromJson(answer.key) } : null;
}

type WriteArgs = Parameters<Parameters<ServiceDeps['db']['write']>[0]>;

async function issue(
  tx: WriteArgs[0],
  sql: WriteArgs[1],
  now: Date,
  actor: Actor,
  name: string,
  roles: Role[],
  key: string,
  samePrincipalAs: number[] = [],
): Promise<IssuedApiKey> {
  const record = await tx.apiKey.create({
    data: {
      name,
      roles: formatRoles(roles),
      keyHash: hashApiKey(key),
      prefix: key.slice(0, SHOWN_PREFIX_LENGTH),
      createdAt: now,
      createdBy: actor.name,
    },
  });
  await appendEvent(sql, {
    type: 'API_KEY_CREATED',
    actor: actor.name,
    at: now,
    // The keys (comma-separated ids) the administrator said this one acts as the same principal as.
    details: {
      keyId: record.id,
      name,
      roles: record.roles,
      ...(samePrincipalAs.length > 0 ? { samePrincipalAs: samePrincipalAs.join(',') } : {}),
    },
  });
  return { key, record };
}

/** Revokes a key at once: requests with it are refused and the connections it opened are closed. */
export async function revokeApiKey(deps: ServiceDeps, actor: Actor, id: number): Promise<ApiKey> {
  const notFound = () => new DomainError('API_KEY_NOT_FOUND', `No API key has id ${id}.`, 'id');
  const revokedAlready = () => new DomainError('API_KEY_REVOKED', `API key ${id} is already revoked.`, 'id');
  // PostgreSQL: one statement under the write lock (leasehold_key_revoke).
  return deps.db.perform({
    work: async (tx, sql) => {
      const now = deps.clock.now();
      const existing = await tx.apiKey.findUnique({ where: { id } });
      if (!existing) throw notFound();
      if (existing.revokedAt) throw revokedAlready();
      const revoked = await tx.apiKey.update({ where: { id }, data: { revokedAt: now, revokedBy: actor.name } });
      await appendEvent(sql, {
        type: 'API_KEY_REVOKED',
        actor: actor.name,
        at: now,
        details: { keyId: id, name: existing.name },
      });
      return revoked;
    },
    call: {
      fields: { op: 'keyRevoke', actor: actor.name, id },
      clock: deps.clock,
      answer: (answer) => {
        if (answer.refusal === 'API_KEY_NOT_FOUND') throw notFound();
        if (answer.refusal === 'API_KEY_REVOKED' || !answer.key) throw revokedAlready();
        return apiKeyFromJson(answer.key);
      },
    },
  });
}

export async function listApiKeys(deps: ServiceDeps, options: { includeRevoked: boolean }): Promise<ApiKey[]> {
  return deps.db.read.apiKey.findMany({
    where: options.includeRevoked ? {} : { revokedAt: null },
    orderBy: { id: 'asc' },
  });
}

/** The unrevoked key with this hash, if any (read from committed data). */
export async function findActiveApiKey(deps: ServiceDeps, keyHash: string): Promise<ApiKey | null> {
  return deps.db.read.apiKey.findFirst({ where: { keyHash, revokedAt: null } });
}

/** Records when a key was last used. Callers throttle it; it is not part of any request's work. */
export async function touchApiKey(deps: ServiceDeps, id: number, at: Date): Promise<void> {
  await deps.db.perform({
    work: async (_tx, sql) => {
      await sql.run('UPDATE "ApiKey" SET "lastUsedAt" = ? WHERE "id" = ? AND ("lastUsedAt" IS NULL OR "lastUsedAt" < ?)', at, id, at);
    },
    // PostgreSQL: one statement under the write lock (write-calls.ts), not an interactive transaction.
    call: { fields: { op: 'touchKey', id, at: at.toISOString() }, clock: deps.clock, answer: () => undefined },
  });
}
