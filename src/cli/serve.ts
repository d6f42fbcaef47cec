// `leasehold serve [DB] [--host H] [--port P]`: the same server as `npm start`. Its configuration is
// the environment (README); the arguments only override DATABASE_URL, HOST and PORT, and src/main.ts
// does the rest (start-up, logs, graceful shutdown on SIGINT/SIGTERM, its own exit code), including
// the first ADMIN key of a database that never had one, printed once on stderr (src/first-run.ts).
import path from 'node:path';
import type { Namespace } from './argparse.js';
import { checkExisting, pathExists } from './database.js';
import { CliError, EXIT, emitFailure } from './output.js';
import { pythonPath } from './python.js';

export async function serve(args: Namespace): Promise<number> {
  if (args.db !== null) {
    const file = path.resolve(pythonPath(args.db as string));
    // A new file is created and migrated by the server; an existing one must be Leasehold's.
    if (pathExists(file)) {
      try {
        checkExisting(file);
      } catch (error) {
        const failure = error instanceof CliError ? error : new CliError('database_error', String(error), EXIT.failure);
        await emitFailure(failure.code, failure.message);
        return failure.exitCode;
      }
    }
    process.env.DATABASE_URL = `file:${file}`;
  }
  if (args.host !== null) process.env.HOST = args.host as string;
  if (args.port !== null) process.env.PORT = String(args.port);
  await import('../main.js');
  // The server runs until a signal stops it; src/main.ts exits the process itself.
  return new Promise<number>(() => undefined);
}
