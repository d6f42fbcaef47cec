// Development-only wrapper around Prisma's WebAssembly schema engine: generates
// migration SQL and detects drift without the native engine binary (which cannot be
// downloaded here). The package is internal to Prisma and pinned to an exact version.
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { PrismaBetterSqlite3 } from '@prisma/adapter-better-sqlite3';
import { bindMigrationAwareSqlAdapterFactory } from '@prisma/driver-adapter-utils';

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

async function loadEngine(databaseFile: string, schemaFile: string): Promise<WasmSchemaEngine> {
  const bindings = await loadBindings();
  const adapter = bindMigrationAwareSqlAdapterFactory(new PrismaBetterSqlite3({ url: databaseFile }));
  const schema = await readFile(schemaFile, 'utf8');
  return bindings.SchemaEngine.new({ datamodels: [[schemaFile, schema]] }, () => {}, adapter);
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
 * SQL that takes the database in `databaseFile` to what `schemaFile` describes.
 * An empty result (only a comment) means the two agree.
 */
export async function diffDatabaseToSchema(databaseFile: string, schemaFile: string): Promise<{ sql: string; differs: boolean }> {
  const engine = await loadEngine(databaseFile, schemaFile);
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
  }
}
