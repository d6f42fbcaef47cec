// Development-only wrapper around Prisma's WebAssembly schema engine: generates
// migration SQL and detects drift without the native engine binary (which cannot be
// downloaded here). The package is internal to Prisma and pinned to an exact version.
// Works on a SQLite file or, given a postgres:// or postgresql:// URL, on a PostgreSQL database.
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { PrismaBetterSqlite3 } from '@prisma/adapter-better-sqlite3';
import { PrismaPg } from '@prisma/adapter-pg';
import {
  bindMigrationAwareSqlAdapterFactory,
  ColumnTypeEnum,
  type SqlMigrationAwareDriverAdapterFactory,
  type SqlQuery,
  type SqlQueryable,
  type SqlResultSet,
} from '@prisma/driver-adapter-utils';
import pg from 'pg';

const require = createRequire(import.meta.url);

type DiffTarget =
  | { tag: 'empty' }
  | { tag: 'schemaDatamodel'; files: { path: string; content: string }[] }
  | { tag: 'schemaDatasource'; files: { path: string; content: string }[]; configDir: string };

interface WasmSchemaEngine {
  diff(params: {
    from: DiffTarget;
    to: DiffTarget;
    script: boolean;
    exitCode: boolean | null;
    filters: { externalTables: string[]; externalEnums: string[] };
  }): Promise<{ exitCode: number; stdout: string | null }>;
  free(): void;
}

interface EngineBindings {
  __wbg_set_wasm(exports: Record<string, unknown>): void;
  SchemaEngine: {
    new: (options: unknown, log: (message: string) => void, adapter: object) => Promise<WasmSchemaEngine>;
  };
}

/**
 * The bindings module is a process-wide singleton that caches views of the wasm memory,
 * so the module is instantiated once per process: a second instance would leave those
 * views on the first one's memory (the engine then panics or hangs).
 */
let bindingsOnce: Promise<EngineBindings> | null = null;

function loadBindings(): Promise<EngineBindings> {
  bindingsOnce ??= (async () => {
    const bgPath = require.resolve('@prisma/schema-engine-wasm/schema_engine_bg');
    const bindings = (await import(bgPath)) as EngineBindings;
    const wasmBytes = await readFile(path.join(path.dirname(bgPath), 'schema_engine_bg.wasm'));
    const { instance } = await WebAssemblyApi.instantiate(wasmBytes, { './schema_engine_bg.js': bindings });
    bindings.__wbg_set_wasm(instance.exports);
    (instance.exports.__wbindgen_start as () => void)();
    return bindings;
  })();
  return bindingsOnce;
}

export function isPostgresUrl(database: string): boolean {
  return database.startsWith('postgres://') || database.startsWith('postgresql://');
}

/** OIDs of PostgreSQL's one-byte internal type "char" (pg_class.relkind, pg_constraint.contype …) and of text. */
const PG_CHAR_OID = 18;
const PG_TEXT_OID = 25;

/** Result rows (the adapter passes pg's array through) → indexes of their "char" columns. */
const charColumns = new WeakMap<object, number[]>();

function relabelChar(result: unknown): void {
  for (const one of Array.isArray(result) ? result : [result]) {
    const { fields, rows } = (one ?? {}) as Partial<pg.QueryResult>;
    if (!fields || !rows) continue;
    const indexes = fields.flatMap((field, index) => (field.dataTypeID === PG_CHAR_OID ? [index] : []));
    if (indexes.length === 0) continue;
    for (const index of indexes) (fields[index] as pg.FieldDef).dataTypeID = PG_TEXT_OID;
    charColumns.set(rows, indexes);
  }
}

/**
 * The engine's catalog queries return "char" columns, which @prisma/adapter-pg 7.10 refuses
 * ("Column type 'char' could not be deserialized from the database"), so introspecting any
 * database fails. This client relabels them as text so the adapter accepts them (pg already
 * hands the values over as one-character strings); `withCharColumns` then tells the engine
 * they are characters, which is what it reads them as.
 */
class CharAsTextClient extends pg.Client {
  constructor(config?: pg.ClientConfig) {
    super(config);
    const query = this.query.bind(this) as (...args: unknown[]) => unknown;
    this.query = ((...args: unknown[]) => {
      const callback = args.at(-1);
      if (typeof callback === 'function') {
        // pg.Pool#query passes a callback.
        args[args.length - 1] = (error: unknown, result: unknown) => {
          relabelChar(result);
          callback(error, result);
        };
        return query(...args);
      }
      const returned = query(...args);
      if (!(returned instanceof Promise)) return returned;
      return returned.then((result) => {
        relabelChar(result);
        return result;
      });
    }) as typeof this.query;
  }
}

function withCharColumns<T extends SqlQueryable>(queryable: T): T {
  return new Proxy(queryable, {
    get(target, property) {
      const value = Reflect.get(target, property);
      if (typeof value !== 'function') return value;
      if (property === 'queryRaw') {
        return async (query: SqlQuery): Promise<SqlResultSet> => {
          const result = await target.queryRaw(query);
          for (const index of charColumns.get(result.rows) ?? []) result.columnTypes[index] = ColumnTypeEnum.Character;
          return result;
        };
      }
      if (property === 'startTransaction') {
        return async (...args: unknown[]) => withCharColumns(await value.apply(target, args));
      }
      return value.bind(target);
    },
  });
}

/** PrismaPg on our own pool (closed by the caller), with the "char" workaround above. */
function postgresFactory(pool: pg.Pool): SqlMigrationAwareDriverAdapterFactory {
  const inner = new PrismaPg(pool);
  return {
    provider: inner.provider,
    adapterName: inner.adapterName,
    connect: async () => withCharColumns(await inner.connect()),
    connectToShadowDb: async () => withCharColumns(await inner.connectToShadowDb()),
  };
}

/**
 * The engine plus whatever must be closed after it. For PostgreSQL we own the pool: the
 * adapter only ends a pool it made itself when disposed, and the engine may never dispose it,
 * which would keep the process alive on idle connections.
 */
async function loadEngine(database: string, schemaFile: string): Promise<{ engine: WasmSchemaEngine; close: () => Promise<void> }> {
  const bindings = await loadBindings();
  let factory: SqlMigrationAwareDriverAdapterFactory;
  let close = async (): Promise<void> => {};
  if (isPostgresUrl(database)) {
    const pool = new pg.Pool({ connectionString: database, max: 2, Client: CharAsTextClient as unknown as new () => pg.ClientBase });
    factory = postgresFactory(pool);
    close = () => pool.end();
  } else {
    factory = new PrismaBetterSqlite3({ url: database });
  }
  const adapter = bindMigrationAwareSqlAdapterFactory(factory);
  const schema = await readFile(schemaFile, 'utf8');
  try {
    return { engine: await bindings.SchemaEngine.new({ datamodels: [[schemaFile, schema]] }, () => {}, adapter), close };
  } catch (error) {
    await close();
    throw error;
  }
}

/** WebAssembly's JS API; declared here because the DOM typings are not part of this Node project. */
const WebAssemblyApi = (
  globalThis as unknown as {
    WebAssembly: {
      instantiate(bytes: Uint8Array, imports: Record<string, unknown>): Promise<{ instance: { exports: Record<string, unknown> } }>;
    };
  }
).WebAssembly;

const noFilters = { externalTables: [], externalEnums: [] };

/**
 * SQL that takes `database` (a SQLite file, or a PostgreSQL URL) to what `schemaFile` describes;
 * the schema's provider must match. An empty result (only a comment) means the two agree.
 */
export async function diffDatabaseToSchema(database: string, schemaFile: string): Promise<{ sql: string; differs: boolean }> {
  const { engine, close } = await loadEngine(database, schemaFile);
  try {
    const content = await readFile(schemaFile, 'utf8');
    const files = [{ path: schemaFile, content }];
    const result = await engine.diff({
      from: { tag: 'schemaDatasource', files, configDir: path.dirname(schemaFile) },
      to: { tag: 'schemaDatamodel', files },
      script: true,
      exitCode: true,
      filters: noFilters,
    });
    return { sql: result.stdout ?? '', differs: result.exitCode === 2 };
  } finally {
    engine.free();
    await close();
  }
}
