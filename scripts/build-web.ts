// Builds the web pages (web/<page>/) into dist/web/<page>/: one esbuild bundle per page, its stylesheet (with the
// pages' shared base, web/shared/base.css) and its HTML. Run by `npm run build` and on install; src/web-pages.ts
// serves the results at /dashboard, /review and /approvals.
import { copyFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { WEB_PAGES } from '../src/web-pages.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const WEB_OUTPUT = path.join(ROOT, 'dist', 'web');

/** Each page (src/web-pages.ts lists them) has web/<name>/main.ts, styles.css and index.html, built to <name>.js and <name>.css. */
type PageName = (typeof WEB_PAGES)[number];

async function buildPage(name: PageName, outroot: string): Promise<void> {
  const source = path.join(ROOT, 'web', name);
  const outdir = path.join(outroot, name);
  await mkdir(outdir, { recursive: true });
  await build({
    absWorkingDir: ROOT,
    entryPoints: [
      { in: path.join(source, 'main.ts'), out: name },
      { in: path.join(source, 'styles.css'), out: name },
    ],
    outdir,
    bundle: true,
    format: 'esm',
    platform: 'browser',
    // Browsers from the last few years; the pages have no fallbacks for older ones.
    target: ['es2022', 'chrome100', 'firefox100', 'safari15'],
    minify: true,
    legalComments: 'none',
    logLevel: 'warning',
    tsconfig: path.join(ROOT, 'web', 'tsconfig.json'),
  });
  await copyFile(path.join(source, 'index.html'), path.join(outdir, 'index.html'));
}

/** Writes every page (default under dist/web/). */
export async function buildWeb(outroot = WEB_OUTPUT): Promise<void> {
  await Promise.all(WEB_PAGES.map((name) => buildPage(name, outroot)));
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await buildWeb();
}
