// Builds the dashboard (web/dashboard/) into dist/web/dashboard/: one esbuild bundle, its stylesheet and the page.
// Run by `npm run build` and on install; src/dashboard.ts serves the result at /dashboard.
import { copyFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SOURCE = path.join(ROOT, 'web', 'dashboard');
export const DASHBOARD_OUTPUT = path.join(ROOT, 'dist', 'web', 'dashboard');

/** Writes index.html, dashboard.js and dashboard.css to `outdir` (default dist/web/dashboard/). */
export async function buildDashboard(outdir = DASHBOARD_OUTPUT): Promise<void> {
  await mkdir(outdir, { recursive: true });
  await build({
    absWorkingDir: ROOT,
    entryPoints: [
      { in: path.join(SOURCE, 'main.ts'), out: 'dashboard' },
      { in: path.join(SOURCE, 'styles.css'), out: 'dashboard' },
    ],
    outdir,
    bundle: true,
    format: 'esm',
    platform: 'browser',
    // Browsers from the last few years; the page has no fallbacks for older ones.
    target: ['es2022', 'chrome100', 'firefox100', 'safari15'],
    minify: true,
    legalComments: 'none',
    logLevel: 'warning',
    tsconfig: path.join(SOURCE, 'tsconfig.json'),
  });
  await copyFile(path.join(SOURCE, 'index.html'), path.join(outdir, 'index.html'));
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await buildDashboard();
}
