#!/usr/bin/env node
// `npx leasehold …`: runs the compiled command line (dist/, written by `npm run build` or `npm start`)
// when it is at least as new as every source it was compiled from, and otherwise the TypeScript
// sources through tsx, so a stale build is never run. LEASEHOLD_CLI_SOURCE=1 always runs the sources.
//
// src/generated is not among those sources: `npm install` (and with it npx's install step) re-runs
// `prisma generate`, which rewrites it with the same content and a new time, and that alone made every
// later command run from the sources (about twice as slow). What the generated client is made from, the
// Prisma schemas, is checked instead: a changed schema still means the build is stale.
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const compiled = path.join(root, 'dist', 'cli', 'main.js');
const generated = path.join(root, 'src', 'generated');
const schemas = [path.join(root, 'prisma', 'schema.prisma'), path.join(root, 'prisma', 'postgresql', 'schema.prisma')];

function newestSource(directory) {
  let newest = 0;
  for (const entry of readdirSync(directory, { withFileTypes: true })) {
    const full = path.join(directory, entry.name);
    if (full === generated) continue;
    const time = entry.isDirectory() ? newestSource(full) : statSync(full).mtimeMs;
    if (time > newest) newest = time;
  }
  return newest;
}

function compiledIsCurrent() {
  if (process.env.LEASEHOLD_CLI_SOURCE === '1' || !existsSync(compiled)) return false;
  const built = statSync(compiled).mtimeMs;
  if (schemas.some((schema) => existsSync(schema) && statSync(schema).mtimeMs > built)) return false;
  return built >= newestSource(path.join(root, 'src'));
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
