// `leasehold keys create|list|revoke`: the server's API keys, administered on the database file
// (whoever may write the file administers it), or on a PostgreSQL database (whoever holds its URL). The same services as the createApiKey, apiKeys and
// revokeApiKey mutations, so each change is in the history and a running server sees it. A key is
// printed once, in create's answer; the database keeps only its SHA-256.
import type { ApiKey } from '../db/client.js';
import { isRole, parseRoles, ROLE_NAMES, type Role } from '../domain/access.js';
import { LIMITS, validateText } from '../domain/validation.js';
import type { Namespace } from './argparse.js';
import { cliActor, withDatabase } from './database.js';
import { CliError } from './output.js';
import { pythonPath } from './python.js';

type Result = Record<string, unknown>;

/** Loaded once the arguments have passed, as in seed.ts: a rejected command line never loads Prisma. */
const services = () => import('../services/api-keys.js');

/** Times are whole epoch seconds, as everywhere on the command line. */
const seconds = (date: Date | null): number | null => (date === null ? null : Math.floor(date.getTime() / 1000));

type Location = import('../config/database-location.js').DatabaseLocation;

/**
 * --db (a file as pathlib spells it, or a file: or postgresql:// URL); without it the server's own
 * database (DATABASE_URL, else ./data/leasehold.db).
 */
async function databaseOf(args: Namespace): Promise<Location> {
  const { ConfigError } = await import('../config/json-setting.js');
  const { databaseLocation } = await import('../config/database-location.js');
  const given = args.db as string | null;
  try {
    // A URL (a scheme of two letters or more) is read as DATABASE_URL is: `mysql://…` is refused, not made a folder.
    if (given !== null && !/^[a-z][a-z0-9+.-]+:/i.test(given)) return { dialect: 'sqlite', file: pythonPath(given) };
    return databaseLocation(given ?? process.env.DATABASE_URL ?? 'file:./data/leasehold.db');
  } catch (error) {
    if (error instanceof ConfigError)
      throw new CliError('config_error', given === null ? `${error.message} (or pass --db).` : error.message);
    throw error;
  }
}

/** How the answer names the database: the file, or the URL without its password. */
async function shown(location: Location): Promise<string> {
  const { describeDatabase } = await import('../config/database-location.js');
  return describeDatabase(location);
}

/** Every --role, each possibly a comma-separated list; any case. Unknown names are refused, naming the known ones. */
export function rolesOf(given: readonly string[]): Role[] {
  const roles = new Set<Role>();
  for (const value of given) {
    for (const part of value.split(',')) {
      const name = part.trim();
      const role = name.toUpperCase();
      if (!isRole(role)) {
        const what = name === '' ? `An empty role in --role ${JSON.stringify(value)}` : `Unknown role ${JSON.stringify(name)}`;
        throw new CliError('invalid_role', `${what}: the roles are ${ROLE_NAMES.join(', ')}.`);
      }
      roles.add(role);
    }
  }
  return [...roles].sort();
}

/** What may be shown of a key: never the secret or its hash. */
function describe(key: ApiKey): Result {
  return {
    id: key.id,
    name: key.name,
    roles: [...parseRoles(key.roles)].sort(),
    prefix: key.prefix,
    created_at: seconds(key.createdAt),
    created_by: key.createdBy,
    last_used_at: seconds(key.lastUsedAt),
    revoked_at: seconds(key.revokedAt),
    revoked_by: key.revokedBy,
  };
}

function writeStderr(text: string): Promise<void> {
  return new Promise((resolve) => process.stderr.write(text, () => resolve()));
}

async function create(args: Namespace): Promise<Result> {
  // Checked before the database is opened, as every command checks its text arguments first.
  const name = validateText(args.name as string, 'name', LIMITS.reviewer);
  const roles = rolesOf(args.role as string[]);
  const database = await databaseOf(args);
  const { createApiKey } = await services();
  const samePrincipal = args.same_principal === true;
  const { key, record } = await withDatabase(database, (deps) => createApiKey(deps, cliActor(), { name, roles, samePrincipal }));
  const named = await shown(database);
  // A person at a terminal is told once; scripts (stderr not a terminal) get only the JSON line.
  if (process.stderr.isTTY) {
    await writeStderr(
      'Leasehold: the new API key ("key" in the JSON line on stdout) is shown only this once: store it now.\n' +
        'Only its SHA-256 is kept, so it cannot be shown again. Send it as `Authorization: Bearer <key>`.\n',
    );
  }
  const { id, name: shownName, roles: shownRoles, prefix, created_at } = describe(record);
  return { database: named, id, name: shownName, roles: shownRoles, prefix, created_at, key };
}

async function list(args: Namespace): Promise<Result> {
  const database = await databaseOf(args);
  const { listApiKeys } = await services();
  const keys = await withDatabase(database, (deps) => listApiKeys(deps, { includeRevoked: args.all === true }));
  return { database: await shown(database), keys: keys.map(describe) };
}

async function revoke(args: Namespace): Promise<Result> {
  const database = await databaseOf(args);
  const { revokeApiKey } = await services();
  const key = await withDatabase(database, (deps) => revokeApiKey(deps, cliActor(), args.id as number));
  const { id, name, roles, prefix, revoked_at, revoked_by } = describe(key);
  return { database: await shown(database), revoked: true, id, name, roles, prefix, revoked_at, revoked_by };
}

const KEY_COMMANDS: Record<string, (args: Namespace) => Promise<Result>> = { create, list, revoke };

/** `leasehold keys <subcommand>`: the result for the command line's one JSON line. */
export function keys(args: Namespace): Promise<Result> {
  return (KEY_COMMANDS[args.keys_command as string] as (args: Namespace) => Promise<Result>)(args);
}
