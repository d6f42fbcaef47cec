// GET /dashboard, /review and /approvals: the web pages and their two assets each, built by scripts/build-web.ts into dist/web/<page>/.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Plugin } from 'graphql-yoga';
import type { Logger } from './logger.js';

/** The same directory whether this module runs from src/ (tsx) or from dist/ (compiled): both sit in the project root. */
export const WEB_DIRECTORY = fileURLToPath(new URL('../dist/web/', import.meta.url));

/** The pages: web/<page>/ built by scripts/build-web.ts, served here as `/<page>` with its script and stylesheet. */
export const WEB_PAGES = ['dashboard', 'review', 'approvals'] as const;
const PAGES: readonly string[] = WEB_PAGES;

const FILES = new Map<string, { file: string; type: string }>(
  PAGES.flatMap((page) => [
    [`/${page}`, { file: `${page}/index.html`, type: 'text/html; charset=utf-8' }],
    [`/${page}/assets/${page}.js`, { file: `${page}/${page}.js`, type: 'text/javascript; charset=utf-8' }],
    [`/${page}/assets/${page}.css`, { file: `${page}/${page}.css`, type: 'text/css; charset=utf-8' }],
  ]),
);

/**
 * Nothing inline and nothing from elsewhere: the page loads its own script and stylesheet, and talks only to
 * this origin (HTTP and WebSocket; CSP Level 3 'self' covers ws:/wss: on the same host).
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self' data:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const SECURITY_HEADERS = {
  'content-security-policy': CONTENT_SECURITY_POLICY,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  // Small files, rebuilt by `npm run build`: always revalidate rather than serve a stale bundle.
  'cache-control': 'no-cache',
};

const PERSISTED_META = '<meta name="leasehold-persisted-operations" content="off" />';
const persistedMeta = (mode: string) => `<meta name="leasehold-persisted-operations" content="${mode}" />`;

/**
 * Serves the pages without a credential, like GraphiQL's page: they hold no data, and every API call
 * they make carries the key the user enters.
 */
export function webPages(logger: Logger, directory = WEB_DIRECTORY, persistedOperations: 'off' | 'allow' | 'require' = 'off'): Plugin {
  return {
    async onRequest({ request, url, endResponse, fetchAPI }) {
      const page = url.pathname.slice(1, -1);
      if (url.pathname.endsWith('/') && PAGES.includes(page)) {
        // Asset paths are relative to /<page>, so the trailing-slash form would break them.
        endResponse(new fetchAPI.Response(null, { status: 308, headers: { location: `/${page}${url.search}` } }));
        return;
      }
      const entry = FILES.get(url.pathname);
      if (!entry) return;
      if (request.method !== 'GET' && request.method !== 'HEAD') {
        endResponse(new fetchAPI.Response(null, { status: 405, headers: { allow: 'GET, HEAD' } }));
        return;
      }
      let body: Buffer;
      try {
        body = await readFile(path.join(directory, entry.file));
      } catch (error) {
        logger.error({ err: error, directory }, 'the web pages are not built');
        endResponse(
          new fetchAPI.Response('The web pages are not built: run `npm run build`.\n', {
            status: 503,
            headers: { 'content-type': 'text/plain; charset=utf-8' },
          }),
        );
        return;
      }
      // The page sends its documents by hash when the server keeps their manifest (src/http/persisted-operations.ts).
      if (entry.file.endsWith('/index.html'))
        body = Buffer.from(body.toString('utf8').replace(PERSISTED_META, persistedMeta(persistedOperations)));
      endResponse(
        new fetchAPI.Response(request.method === 'HEAD' ? null : new Uint8Array(body), {
          headers: { 'content-type': entry.type, 'content-length': String(body.length), ...SECURITY_HEADERS },
        }),
      );
    },
  };
}
