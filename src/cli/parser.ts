// The command line's grammar: seed A's seven commands with exactly its arguments, then Leasehold's own.
import { ROLE_NAMES } from '../domain/access.js';
import { LIMITS } from '../domain/validation.js';
import {
  type Action,
  ArgumentTypeError,
  addArgument,
  addMutuallyExclusiveGroup,
  addSubparsers,
  newParser,
  type Parser,
} from './argparse.js';
import { pythonInt } from './python.js';

/** An API key's id: Python's int(), from 1 to the largest id SQLite's Int column holds for Prisma. */
export function keyId(value: string): number {
  const id = pythonInt(value);
  if (id === null || id < 1 || id > 2_147_483_647) throw new ArgumentTypeError('must be a key id: a whole number from 1 to 2147483647');
  return id;
}

/** Seed A's `lease_seconds` type: Python's int(), then 30–3600. */
export function leaseSeconds(value: string): number {
  const seconds = pythonInt(value);
  if (seconds === null) throw new ArgumentTypeError('must be a whole number');
  if (seconds < LIMITS.minLeaseSeconds || seconds > LIMITS.maxLeaseSeconds) {
    throw new ArgumentTypeError(`must be from ${LIMITS.minLeaseSeconds} to ${LIMITS.maxLeaseSeconds}`);
  }
  return seconds;
}

function positiveInt(max: number) {
  return (value: string): number => {
    const parsed = pythonInt(value);
    if (parsed === null || parsed < 1 || parsed > max) throw new ArgumentTypeError(`must be a whole number from 1 to ${max}`);
    return parsed;
  };
}

function port(value: string): number {
  const parsed = pythonInt(value);
  if (parsed === null || parsed < 0 || parsed > 65535) throw new ArgumentTypeError('must be a port number from 0 to 65535');
  return parsed;
}

const DB_HELP = 'the SQLite database file (the same format the server uses)';
const PG_DB_HELP = 'the SQLite database file (the same format the server uses), or a postgresql:// URL of the server’s PostgreSQL database';
const KEYS_DB_HELP = "the database (default: DATABASE_URL, else ./data/leasehold.db, as serve's)";

function addClaimSource(parser: Parser): void {
  const token = addArgument(parser, '--token', { help: 'the claim_token from claim (or --token=VALUE)' });
  const file = addArgument(parser, '--claim-json', { metavar: 'FILE', help: "a file holding claim's JSON output" });
  addMutuallyExclusiveGroup(parser, true, [token, file] as Action[]);
}

export function buildParser(): Parser {
  const root = newParser(
    'leasehold',
    'Leasehold review queue: seed A’s review_leases.py commands on a Leasehold database, plus the server, bulk import and statistics.',
    [
      'commands:',
      '  init DB --category C [--category C ...]           create a new database with its categories',
      '  add DB --batch-id B --record-id R --proposed-category C --reason TEXT',
      '  claim DB --reviewer R [--lease-seconds N]         lease the next item',
      '  renew DB (--token T | --claim-json FILE) [--lease-seconds N]',
      '  release DB (--token T | --claim-json FILE)',
      '  decide DB (--token T | --claim-json FILE) --decision D [--category C]',
      '  show DB --batch-id B --record-id R',
      '  serve [DB] [--host H] [--port P]                  run the GraphQL server',
      '  import DB FILE                                    add items from JSON Lines or CSV',
      '  stats DB                                          queue counts as JSON',
      '  keys create|list|revoke [--db DB] …               API keys for the server (`leasehold keys --help`)',
      '',
      'Every command but serve prints one line of JSON: on stdout when it succeeds, on stderr',
      '({"ok":false,"error":…}) when it does not. Exit codes: 0 ok (claimed:false included), 2 input',
      'or business rule, 3 database or file error, 130 interrupted. `leasehold <command> --help` for more.',
    ].join('\n'),
  );
  const commands = addSubparsers(root, 'command');
  const command = (name: string, description: string, epilog?: string): Parser => {
    const parser = newParser(`leasehold ${name}`, description, epilog);
    commands.set(name, parser);
    return parser;
  };

  const init = command('init', 'Create a new database file with its allowed categories; an existing file is refused (database_exists).');
  addArgument(init, 'db', { metavar: 'DB', help: DB_HELP });
  addArgument(init, '--category', { append: true, required: true, help: 'an allowed category (repeat for each)' });

  const add = command('add', 'Add one review item.');
  addArgument(add, 'db', { metavar: 'DB', help: DB_HELP });
  addArgument(add, '--batch-id', { required: true, help: '1–100 characters' });
  addArgument(add, '--record-id', { required: true, help: '1–100 characters' });
  addArgument(add, '--proposed-category', { required: true, help: 'an allowed category' });
  addArgument(add, '--reason', { required: true, help: '1–1000 characters' });

  const claim = command(
    'claim',
    'Lease the first claimable item (oldest first, then batch id, then record id). Prints its claim_token once; {"claimed":false} when nothing is claimable.',
  );
  addArgument(claim, 'db', { metavar: 'DB', help: DB_HELP });
  addArgument(claim, '--reviewer', { required: true, help: 'who holds the lease' });
  addArgument(claim, '--lease-seconds', { convert: leaseSeconds, defaultValue: 300, metavar: 'N', help: '30–3600 (default 300)' });

  const renew = command('renew', 'Set the lease to expire --lease-seconds from now.');
  addArgument(renew, 'db', { metavar: 'DB', help: DB_HELP });
  addArgument(renew, '--lease-seconds', { convert: leaseSeconds, defaultValue: 300, metavar: 'N', help: '30–3600 (default 300)' });
  addClaimSource(renew);

  const release = command('release', 'Give the item back undecided.');
  addArgument(release, 'db', { metavar: 'DB', help: DB_HELP });
  addClaimSource(release);

  const decide = command('decide', 'Record the decision of the lease holder; the lease ends with it.');
  addArgument(decide, 'db', { metavar: 'DB', help: DB_HELP });
  addArgument(decide, '--decision', {
    required: true,
    choices: ['accepted', 'corrected', 'rejected'],
    help: 'accepted, corrected or rejected',
  });
  addArgument(decide, '--category', { help: 'the corrected category (corrected only)' });
  addClaimSource(decide);

  const show = command('show', 'Show an item and its claim_state (never its token).');
  addArgument(show, 'db', { metavar: 'DB', help: DB_HELP });
  addArgument(show, '--batch-id', { required: true });
  addArgument(show, '--record-id', { required: true });

  const serve = command(
    'serve',
    'Run the GraphQL server (as npm start). Configuration comes from the environment (see README); DB, --host and --port override DATABASE_URL, HOST and PORT.',
  );
  addArgument(serve, 'db', { optional: true, metavar: 'DB', help: 'SQLite file (default: DATABASE_URL, else ./data/leasehold.db)' });
  addArgument(serve, '--host', { help: 'interface to listen on (default 127.0.0.1)' });
  addArgument(serve, '--port', { convert: port, help: 'port (default 4000; 0 picks a free one)' });

  const importer = command(
    'import',
    'Add items from a JSON Lines or CSV file, in chunks of one transaction each. Items already in the database are skipped, so an interrupted import can simply be run again.',
    [
      'JSON Lines: one object per line with batch_id, record_id, proposed_category, reason (camelCase keys work too).',
      'CSV: a header row naming those four columns, then one item per row (RFC 4180 quoting).',
      'Each bad line is reported on stderr as {"ok":false,"line":N,"error":…}; the summary goes to stdout.',
      'Exit 0 when every line was imported or skipped, 2 when any line failed, 3 on a database or file error.',
    ].join('\n'),
  );
  addArgument(importer, 'db', { metavar: 'DB', help: PG_DB_HELP });
  addArgument(importer, 'file', { metavar: 'FILE', help: 'the items (.jsonl, .ndjson or .csv; other names are sniffed)' });
  addArgument(importer, '--format', { choices: ['jsonl', 'csv'], help: 'jsonl or csv (default: from the file name or its first line)' });
  addArgument(importer, '--chunk-size', {
    convert: positiveInt(LIMITS.maxItemsPerCall),
    defaultValue: LIMITS.maxItemsPerCall,
    metavar: 'N',
    help: `items per transaction, 1–${LIMITS.maxItemsPerCall} (default ${LIMITS.maxItemsPerCall})`,
  });
  addArgument(importer, '--progress', {
    choices: ['auto', 'bar', 'lines', 'none'],
    defaultValue: 'auto',
    help: 'auto (a bar on a terminal, JSON lines otherwise), bar, lines or none',
  });

  const stats = command('stats', 'Queue counts by status and claim state, and the age of the oldest pending item, as one JSON line.');
  addArgument(stats, 'db', { metavar: 'DB', help: PG_DB_HELP });

  const keys = command(
    'keys',
    'Make, list and revoke API keys for the server (what an ADMIN does with createApiKey, apiKeys and revokeApiKey), on the database file directly.',
    [
      'subcommands:',
      '  create --name NAME --role ROLE [--role ROLE ...] [--same-principal]',
      '                                                    make a key; it is printed once, only its SHA-256 is kept',
      '  list [--all]                                      the keys (never the secrets); --all includes revoked ones',
      '  revoke ID                                         refuse the key from now on',
      '',
      `Roles: ${ROLE_NAMES.join(', ')} (repeat --role or separate with commas).`,
      'Each prints one line of JSON, as every command does. `leasehold keys <subcommand> --help` for more.',
    ].join('\n'),
  );
  const keyCommands = addSubparsers(keys, 'keys_command', 'subcommand');
  const keyCommand = (name: string, description: string): Parser => {
    const parser = newParser(`leasehold keys ${name}`, description);
    keyCommands.set(name, parser);
    return parser;
  };
  const create = keyCommand(
    'create',
    'Make an API key for the principal NAME with the given roles. Prints the key once, with its id; only its SHA-256 is stored.',
  );
  addArgument(create, '--name', { required: true, help: 'who the key acts as (recorded as holder, decider, actor): 1–100 characters' });
  addArgument(create, '--role', {
    append: true,
    required: true,
    help: `${ROLE_NAMES.join(', ')}; repeat it or separate roles with commas`,
  });
  addArgument(create, '--same-principal', {
    flag: true,
    help: 'another key already has NAME and this one is to act as the same principal (refused otherwise)',
  });
  const list = keyCommand('list', 'List the API keys, oldest first: id, name, roles, prefix and times, never the key or its hash.');
  addArgument(list, '--all', { flag: true, help: 'include revoked keys' });
  const revoke = keyCommand('revoke', 'Revoke an API key: a running server refuses it from then on and closes the connections it opened.');
  addArgument(revoke, 'id', { metavar: 'ID', convert: keyId, help: 'the key id (from create or list)' });
  for (const parser of [create, list, revoke]) addArgument(parser, '--db', { metavar: 'DB', help: KEYS_DB_HELP });

  return root;
}
