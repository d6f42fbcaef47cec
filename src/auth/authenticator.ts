// Turns a bearer credential (an API key or a signed JWT) into a Principal, or refuses with a
// reason the caller can act on. Never logs or keeps a credential; keys are looked up by hash.
import { createSecretKey, type KeyObject } from 'node:crypto';
import { importSPKI, type JWTPayload, errors as joseErrors, jwtVerify } from 'jose';
import type { JwtConfig } from '../config.js';
import { isRole, isServerName, type Principal, parseRoles, type Role } from '../domain/access.js';
import type { Timer } from '../domain/clock.js';
import { LIMITS, validateText } from '../domain/validation.js';
import type { Logger } from '../logger.js';
import { findActiveApiKey, hashApiKey, looksLikeApiKey, touchApiKey } from '../services/api-keys.js';
import type { ServiceDeps } from '../services/context.js';

/** Why a credential was refused. The message is safe to show the caller. */
export class AuthenticationError extends Error {
  readonly code = 'UNAUTHENTICATED';
}

/** A verified key stays verified this long in this process; revocation also evicts it (see `forgetKey`). */
const KEY_CACHE_MS = 1_000;
const KEY_CACHE_MAX = 10_000;
/** `lastUsedAt` is written at most this often per key and process. */
const TOUCH_EVERY_MS = 60_000;
const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;
const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;
const MAX_CREDENTIAL_LENGTH = 8_192;

export interface AuthenticatorOptions extends ServiceDeps {
  jwt: JwtConfig | null;
  logger: Logger;
}

export class Authenticator {
  private readonly keys = new Map<string, { principal: Principal; verifiedAt: number }>();
  private readonly touched = new Map<number, number>();
  /** Keys this process has seen revoked, so a stream opened just after the revocation is still ended. */
  private readonly revokedKeys = new Set<number>();
  /** What to call when a key is revoked: the `watch`es of the streams and connections it opened. */
  private readonly keyWatches = new Map<number, Set<() => void>>();
  private jwtKey: Promise<KeyObject | CryptoKey> | null = null;

  constructor(private readonly options: AuthenticatorOptions) {
    const { jwt } = options;
    if (jwt) {
      this.jwtKey =
        jwt.algorithm === 'HS256'
          ? Promise.resolve(createSecretKey(Buffer.from(jwt.key, 'utf8')))
          : importSPKI(jwt.key.replaceAll('\\n', '\n'), jwt.algorithm);
      // A bad public key is a configuration error: fail at start-up, not on the first request.
      this.jwtKey.catch(() => undefined);
    }
  }

  /** Resolves once the configured JWT key is usable; rejects with the reason when it is not. */
  async ready(): Promise<void> {
    await this.jwtKey;
  }

  /** From an `Authorization` header value (HTTP) or `connectionParams.authorization` (WebSocket). */
  async authenticate(authorization: string | null | undefined): Promise<Principal> {
    if (!authorization) {
      throw new AuthenticationError('Send a credential: `Authorization: Bearer <API key or JWT>`.');
    }
    if (authorization.length > MAX_CREDENTIAL_LENGTH) throw new AuthenticationError('The credential is too long.');
    const credential = BEARER.exec(authorization)?.[1];
    if (!credential) throw new AuthenticationError('The Authorization header must be `Bearer <API key or JWT>`.');
    if (looksLikeApiKey(credential)) return this.fromApiKey(credential);
    if (JWT_SHAPE.test(credential)) return this.fromJwt(credential);
    throw new AuthenticationError('The credential is neither a Leasehold API key nor a JWT.');
  }

  /**
   * When a principal's credential stops being accepted: a token at its expiry plus the leeway its
   * verification allowed, the same for HTTP requests, WebSocket connections and live streams; null for
   * an API key (it is revoked instead).
   */
  validUntil(principal: Principal): Date | null {
    if (!principal.expiresAt) return null;
    return new Date(principal.expiresAt.getTime() + (this.options.jwt?.clockToleranceSeconds ?? 0) * 1000);
  }

  /** Whether a principal authenticated earlier is still good now (key unrevoked, token unexpired). */
  async stillValid(principal: Principal): Promise<boolean> {
    const until = this.validUntil(principal);
    if (until && until.getTime() <= this.options.clock.now().getTime()) return false;
    if (principal.keyId === null) return true;
    const row = await this.options.db.read.apiKey.findUnique({ where: { id: principal.keyId }, select: { revokedAt: true } });
    return row !== null && row.revokedAt === null;
  }

  /**
   * Calls `ended` once, with the reason, when the principal's credential stops being valid: its API key
   * revoked (by any process, see `forgetKey`) or its token past `validUntil` on the server clock. Never
   * calls it before returning; cancel the watch when what it guards ends first.
   */
  watch(principal: Principal, ended: (ending: AuthenticationError) => void): Timer {
    const { keyId } = principal;
    let watching = true;
    let expiry: Timer | null = null;
    const stop = () => {
      watching = false;
      expiry?.cancel();
      if (keyId === null) return;
      const watches = this.keyWatches.get(keyId);
      watches?.delete(revoked);
      if (watches?.size === 0) this.keyWatches.delete(keyId);
    };
    const end = (reason: string) => {
      if (!watching) return;
      stop();
      ended(new AuthenticationError(reason));
    };
    const revoked = () => end('The API key has been revoked.');
    const until = this.validUntil(principal);
    if (until) expiry = this.options.clock.setTimer(until, () => end('The token has expired.'));
    if (keyId !== null) {
      const watches = this.keyWatches.get(keyId) ?? new Set();
      this.keyWatches.set(keyId, watches.add(revoked));
      // Revoked after the caller was authenticated, before this watch began.
      if (this.revokedKeys.has(keyId)) queueMicrotask(revoked);
    }
    return { cancel: stop };
  }

  /**
   * A key was revoked (called for every API_KEY_REVOKED event, from any process): it is dropped from
   * the cache, and the streams and connections it opened are told.
   */
  forgetKey(keyId: number): void {
    for (const [hash, entry] of this.keys) if (entry.principal.keyId === keyId) this.keys.delete(hash);
    this.revokedKeys.add(keyId);
    const watches = this.keyWatches.get(keyId);
    this.keyWatches.delete(keyId);
    for (const revoked of watches ?? []) revoked();
  }

  private async fromApiKey(key: string): Promise<Principal> {
    const hash = hashApiKey(key);
    const now = performance.now();
    const cached = this.keys.get(hash);
    if (cached && now - cached.verifiedAt < KEY_CACHE_MS) return cached.principal;
    const row = await findActiveApiKey(this.options, hash);
    if (!row) {
      this.keys.delete(hash);
      throw new AuthenticationError('The API key is not valid: it is unknown or has been revoked.');
    }
    const principal: Principal = { name: row.name, roles: parseRoles(row.roles), credential: 'API_KEY', keyId: row.id, expiresAt: null };
    if (this.keys.size >= KEY_CACHE_MAX) this.keys.clear();
    this.keys.set(hash, { principal, verifiedAt: now });
    this.touch(row.id);
    return principal;
  }

  private touch(keyId: number): void {
    const now = performance.now();
    const last = this.touched.get(keyId);
    if (last !== undefined && now - last < TOUCH_EVERY_MS) return;
    this.touched.set(keyId, now);
    touchApiKey(this.options, keyId, this.options.clock.now()).catch((error: unknown) =>
      this.options.logger.warn({ err: error, keyId }, 'could not record when an API key was last used'),
    );
  }

  private async fromJwt(token: string): Promise<Principal> {
    const { jwt } = this.options;
    if (!jwt || !this.jwtKey) throw new AuthenticationError('This server accepts no JWTs: use an API key.');
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, await this.jwtKey, {
        algorithms: [jwt.algorithm],
        issuer: jwt.issuer ?? undefined,
        audience: jwt.audience ?? undefined,
        requiredClaims: ['exp'],
        clockTolerance: jwt.clockToleranceSeconds,
        currentDate: this.options.clock.now(),
      }));
    } catch (error) {
      throw new AuthenticationError(describeJwtFailure(error));
    }
    const rawName = claimAt(payload, jwt.nameClaim);
    if (typeof rawName !== 'string') throw new AuthenticationError(`The token has no "${jwt.nameClaim}" claim naming the principal.`);
    let name: string;
    try {
      name = validateText(rawName, jwt.nameClaim, LIMITS.reviewer);
    } catch {
      throw new AuthenticationError(`The token's "${jwt.nameClaim}" claim must be 1–100 characters without control characters.`);
    }
    // Compatibility forms too: "ｓｙｓｔｅｍ" (full-width) reads as "system" in the history.
    if (isServerName(name)) {
      throw new AuthenticationError(
        `The token's "${jwt.nameClaim}" claim names "${name}", which the server uses for its own changes: no token may claim it.`,
      );
    }
    const roles = rolesFrom(claimAt(payload, jwt.rolesClaim));
    if (roles.size === 0) {
      throw new AuthenticationError(`The token carries no Leasehold role in its "${jwt.rolesClaim}" claim.`);
    }
    return { name, roles, credential: 'JWT', keyId: null, expiresAt: new Date((payload.exp as number) * 1000) };
  }
}

function claimAt(payload: JWTPayload, path: string): unknown {
  let value: unknown = payload;
  for (const part of path.split('.')) {
    if (value === null || typeof value !== 'object' || !Object.hasOwn(value, part)) return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}

/** Roles from an array or a space-separated string; unknown names are ignored, case is not. */
function rolesFrom(claim: unknown): Set<Role> {
  const names = Array.isArray(claim) ? claim : typeof claim === 'string' ? claim.split(/\s+/) : [];
  const roles = new Set<Role>();
  for (const name of names) {
    if (typeof name !== 'string') continue;
    const upper = name.toUpperCase();
    if (isRole(upper)) roles.add(upper);
  }
  return roles;
}

function describeJwtFailure(error: unknown): string {
  if (error instanceof joseErrors.JWTExpired) return 'The token has expired.';
  if (error instanceof joseErrors.JWSSignatureVerificationFailed) return 'The token signature does not verify.';
  if (error instanceof joseErrors.JOSEAlgNotAllowed) return 'The token is signed with an algorithm this server does not accept.';
  if (error instanceof joseErrors.JWTClaimValidationFailed)
    return `The token's "${error.claim}" claim is not acceptable (${error.reason}).`;
  return 'The token is not a valid JWT.';
}
