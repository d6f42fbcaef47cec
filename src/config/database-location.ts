// Where the data lives: DATABASE_URL read as a SQLite file or a PostgreSQL database, and named without its password.
import path from 'node:path';
import { ConfigError } from './json-setting.js';

export const DEFAULT_DATABASE_URL = 'file:./data/leasehold.db';

export type DatabaseLocation = { dialect: 'sqlite'; file: string } | { dialect: 'postgresql'; url: string };

/**
 * PG_WRITE_MODE, PostgreSQL only: `serialized` (the default, decision 0008), every write under one global
 * lock; `sharded`, the prototype of decision 0009, whose review writes take row locks only.
 */
export const WRITE_MODES = ['serialized', 'sharded'] as const;
export type WriteMode = (typeof WRITE_MODES)[number];

const POSTGRES_URL = /^postgres(ql)?:\/\//i;
/** A URL scheme (two letters or more, so a Windows drive letter is still a path). */
const URL_SCHEME = /^([a-z][a-z0-9+.-]+):/i;

/**
 * `postgresql://…` or `postgres://…` → PostgreSQL; `file:…` or a bare path names a SQLite file. Any
 * other scheme (`mysql://…`) is refused: read as a path it would make a directory named `mysql:`.
 */
export function databaseLocation(url: string, cwd = process.cwd()): DatabaseLocation {
  const scheme = URL_SCHEME.exec(url)?.[1]?.toLowerCase();
  if (scheme !== undefined && scheme !== 'file' && !POSTGRES_URL.test(url)) {
    throw new ConfigError(
      `Invalid configuration: DATABASE_URL: unsupported scheme "${scheme}:". Use file:path/to/leasehold.db (SQLite) or postgresql://user:password@host:5432/database (PostgreSQL).`,
    );
  }
  if (POSTGRES_URL.test(url)) {
    try {
      new URL(url);
    } catch {
      throw new ConfigError('DATABASE_URL is not a valid PostgreSQL URL (postgresql://user:password@host:5432/database).');
    }
    return { dialect: 'postgresql', url };
  }
  return { dialect: 'sqlite', file: databaseFileFromUrl(url, cwd) };
}

/** The URL with its password replaced, for logs and messages (passwords are never logged). */
export function redactDatabaseUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    for (const key of [...parsed.searchParams.keys()]) {
      if (/pass|secret|key/i.test(key)) parsed.searchParams.set(key, '***');
    }
    return parsed.toString();
  } catch {
    // Not a WHATWG URL (e.g. a socket path with an empty host): redact textually. Greedy up to the
    // last '@' of the authority, as an unencoded '@' may be part of the password.
    return url
      .replace(/^([a-z][a-z0-9+.-]*:\/\/[^:@/?#]*:)[^/?#]*@/i, '$1***@')
      .replace(/([?&][^=&#]*(?:pass|secret|key)[^=&#]*=)[^&#]*/gi, '$1***');
  }
}

/** How to name the database in logs and messages. */
export function describeDatabase(location: DatabaseLocation): string {
  return location.dialect === 'sqlite' ? location.file : redactDatabaseUrl(location.url);
}

/** `file:relative/or/absolute.db` (or a bare path) → absolute file path. */
export function databaseFileFromUrl(url: string, cwd = process.cwd()): string {
  const withoutScheme = /^file:/i.test(url) ? url.slice('file:'.length) : url;
  const filePath = withoutScheme.split('?')[0] ?? withoutScheme;
  if (filePath === '' || filePath === ':memory:') {
    throw new ConfigError('DATABASE_URL must name a SQLite file, e.g. file:./data/leasehold.db');
  }
  return path.resolve(cwd, filePath);
}
