// Seed A's review_leases.py, taken from the seed text (the script is printed there in full). Shared
// by the differential tests and bench/cli.ts; no test-runner imports here.
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** shared/ sits beside the checkout (locally and in CI); LEASEHOLD_SEED_A overrides. */
export const SEED_A_FILE =
  process.env.LEASEHOLD_SEED_A ?? fileURLToPath(new URL('../../../shared/seeds/000_0928c0392a65d3aa.txt', import.meta.url));

/** The script: from its first line to its last, as printed in the seed. */
export function seedScriptText(seedFile = SEED_A_FILE): string {
  const lines = readFileSync(seedFile, 'utf8').split('\n');
  const first = lines.indexOf('from __future__ import annotations');
  const last = lines.indexOf('    raise SystemExit(main())');
  if (first < 0 || last < first) throw new Error(`review_leases.py not found in ${seedFile}`);
  return `${lines.slice(first, last + 1).join('\n')}\n`;
}

/** Whether the seed is where it should be. */
export function seedAvailable(): boolean {
  return existsSync(SEED_A_FILE);
}

/**
 * Whether the tests that run seed A's script run: when the seed is there, and always under CI (CI=true),
 * where a missing seed must fail loudly. A clone on its own (no shared/ beside it) skips them, and their
 * title says how to enable them.
 */
export const SEED_A_TESTS_RUN = seedAvailable() || process.env.CI === 'true';
/** What a skipped seed A test's title adds. */
export const SEED_A_MISSING = SEED_A_TESTS_RUN
  ? ''
  : ` [skipped: seed A not found at ${SEED_A_FILE}; put shared/ beside the checkout or set LEASEHOLD_SEED_A to the seed's file]`;
