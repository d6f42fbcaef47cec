// GET /: where to go from here (it answered an empty 404): GraphiQL, the dashboard, the review and approvals pages, the probes and the docs.
import type { Plugin } from 'graphql-yoga';

const page = (graphiql: boolean) => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Leasehold</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:42rem;margin:3rem auto;padding:0 1rem}code{font-size:.9em}</style>
</head>
<body>
<h1>Leasehold</h1>
<p>Human review of machine proposals: a review queue with time-limited leases, an approval workflow, and live subscriptions.</p>
<ul>
${graphiql ? '<li><a href="/graphql">GraphiQL</a>: the API, with a walkthrough (paste an API key in its Headers pane)</li>\n' : ''}<li><a href="/dashboard">Dashboard</a>: the live queue</li>
<li><a href="/review">Review</a>: claim and decide items, one after another</li>
<li><a href="/approvals">Approvals</a>: review, approve and reconcile action proposals</li>
<li><code>POST /graphql</code>: the GraphQL API (HTTP and server-sent events); WebSocket (<code>graphql-transport-ws</code>) on the same path</li>
<li><a href="/health">/health</a> and <a href="/ready">/ready</a>: liveness and readiness; <code>/metrics</code>: Prometheus</li>
</ul>
<p>Documentation: <code>README.md</code> and <code>docs/</code> in the repository (<code>docs/clients.md</code> for app developers, <code>docs/deploy.md</code> for operators).</p>
</body>
</html>
`;

const HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  // Nothing to run: inline style only, no script, no frames.
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

export function landingPage(options: { graphiql: boolean }): Plugin {
  const body = page(options.graphiql);
  return {
    onRequest({ request, url, endResponse, fetchAPI }) {
      if (url.pathname !== '/') return;
      if (request.method !== 'GET' && request.method !== 'HEAD') {
        endResponse(new fetchAPI.Response(null, { status: 405, headers: { allow: 'GET, HEAD' } }));
        return;
      }
      endResponse(new fetchAPI.Response(request.method === 'HEAD' ? null : body, { status: 200, headers: HEADERS }));
    },
  };
}
