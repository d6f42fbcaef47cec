// `leasehold <command>`: parse as seed A's argparse does, run the command, print one JSON line, and
// return seed A's exit code (0 ok, 2 rejected, 3 database/IO failure, 130 interrupted).
import { setFlagsFromString } from 'node:v8';
import { ArgumentError, formatHelp, HelpRequested, type Namespace, parseArgs } from './argparse.js';
import { CliError, EXIT, emitFailure, emitSuccess, toCliError } from './output.js';
import { buildParser } from './parser.js';

/** Ctrl+C: seed A reports `interrupted` and exits 130 wherever it was; SQLite rolls back an open transaction. */
function exitOnInterrupt(): void {
  process.once('SIGINT', () => {
    void emitFailure('interrupted', 'Interrupted.').finally(() => process.exit(EXIT.interrupted));
  });
}

async function report(error: unknown): Promise<number> {
  const failure = toCliError(error);
  await emitFailure(failure.code, failure.message);
  return failure.exitCode;
}

/** Runs one command line (without `node` and the script) and resolves with the exit code. */
export async function main(argv: readonly string[]): Promise<number> {
  let args: Namespace;
  try {
    args = parseArgs(buildParser(), [...argv]);
  } catch (error) {
    if (error instanceof HelpRequested) {
      await new Promise<void>((resolve) => process.stdout.write(formatHelp(error.parser), () => resolve()));
      return EXIT.ok;
    }
    if (error instanceof ArgumentError) return report(new CliError('argument_error', error.message));
    return report(error);
  }

  const command = args.command as string;
  if (command !== 'serve') {
    // Prisma's query compiler is WebAssembly. V8 optimises hot WebAssembly on background threads and
    // a process cannot exit before those jobs finish: about 150 ms added to every command (measured
    // in bench/cli.ts). A command is over long before optimised code would pay off, so it keeps to
    // the baseline compiler. The server (serve) is left alone. Set before Prisma loads.
    setFlagsFromString('--liftoff-only');
  }
  if (command === 'serve') return (await import('./serve.js')).serve(args);
  if (command === 'import') return (await import('./import.js')).runImport(args);

  exitOnInterrupt();
  try {
    const result =
      command === 'stats'
        ? await (await import('./stats.js')).stats(args)
        : command === 'keys'
          ? await (await import('./keys.js')).keys(args)
          : await ((await import('./seed.js')).SEED_COMMANDS[command] as (a: Namespace) => Promise<Record<string, unknown>>)(args);
    await emitSuccess(result);
    return EXIT.ok;
  } catch (error) {
    return report(error);
  }
}
