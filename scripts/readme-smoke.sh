#!/usr/bin/env bash
# Runs the README's start command for real on a fresh database: it must become ready, answer a
# query, and stop cleanly on SIGTERM. Used by CI so the README cannot rot.
set -euo pipefail
port="${SMOKE_PORT:-47931}"
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
DATABASE_URL="file:$dir/smoke.db" PORT="$port" LOG_LEVEL=warn npm start --silent >"$dir/server.log" 2>&1 &
pid=$!
for _ in $(seq 1 120); do
  if curl -fs "http://127.0.0.1:$port/ready" >/dev/null 2>&1; then break; fi
  if ! kill -0 "$pid" 2>/dev/null; then cat "$dir/server.log"; echo "npm start exited early" >&2; exit 1; fi
  sleep 0.5
done
answer="$(curl -fs "http://127.0.0.1:$port/graphql" -H 'content-type: application/json' \
  -d '{"query":"mutation { addCategories(input: {names: [\"smoke\"]}) { __typename } }"}')"
echo "npm start answered: $answer"
[[ "$answer" == *AddCategoriesPayload* ]] || { cat "$dir/server.log"; exit 1; }
[[ -f "$dir/smoke.db" ]] || { echo "database file was not created" >&2; exit 1; }
# npm start runs node as a child; signal the server process itself.
server_pid="$(pgrep -f "node dist/main.js" -P "$(pgrep -P "$pid" | head -1)" 2>/dev/null || true)"
kill -TERM "${server_pid:-$pid}" 2>/dev/null || true
wait "$pid" || true
if curl -fs "http://127.0.0.1:$port/health" >/dev/null 2>&1; then echo "server still running after SIGTERM" >&2; exit 1; fi
echo "README smoke test ok: npm start served a fresh database and stopped on SIGTERM"
