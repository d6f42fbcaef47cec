#!/usr/bin/env node
// `npx leasehold …`: runs the compiled command line (dist/, written by `npm run build` or `npm start`)
// when it is at least as new as every source file, and otherwise the TypeScript sources through tsx,
// so a stale build is never run. LEASEHOLD_CLI_SOURCE=1 always runs the sources.
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const compiled = path.join(root, 'dist', 'cli', 'main.js');

function newestSource(directory) {
  let newest = 0;
  for (const entry of readdirSync(directory, { withFileTypes: true })) {
    const full = path.join(directory, entry.name);
    const time = entry.isDirectory() ? newestSource(full) : statSync(full).mtimeMs;
    if (time > newest) newest = time;
  }
  return newest;
}

function compiledIsCurrent() {
  if (process.env.LEASEHOLD_CLI_SOURCE === '1' || !existsSync(compiled)) return false;
  return statSync(compiled).mtimeMs >= newestSource(path.join(root, 'src'));
}

let entry;
if (compiledIsCurrent()) {
  entry = pathToFileURL(compiled).href;
} else {
  const { register } = await import('tsx/esm/api');
  register();
  entry = pathToFileURL(path.join(root, 'src', 'cli', 'main.ts')).href;
}
const { main } = await import(entry);
const code = await main(process.argv.slice(2));
process.exit(code);
