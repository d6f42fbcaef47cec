#!/usr/bin/env bash
# Runs the README's start command for real on a fresh database: it must become ready, print the first
# ADMIN key on stderr (the first-run banner) and never in its log, refuse anonymous requests with 401,
# answer the key's holder as "admin" with the ADMIN role, and stop cleanly on SIGTERM; a second start
# on the same database prints no key and the first one still works. Used by CI so the README cannot rot.
set -euo pipefail
port="${SMOKE_PORT:-47931}"
base="http://127.0.0.1:$port"
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
fail() {
  echo "README smoke test FAILED: $*" >&2
  echo "--- stdout (log) ---" >&2
  cat "$dir/server.log" >&2 || true
  echo "--- stderr ---" >&2
  cat "$dir/stderr.log" >&2 || true
  exit 1
}
# stdout is the JSON log; stderr is where the first-run banner goes (and nothing else, normally).
DATABASE_URL="file:$dir/smoke.db" PORT="$port" LOG_LEVEL=info npm start --silent >"$dir/server.log" 2>"$dir/stderr.log" &
pid=$!
for _ in $(seq 1 120); do
  if curl -fs "$base/ready" >/dev/null 2>&1; then break; fi
  if ! kill -0 "$pid" 2>/dev/null; then fail "npm start exited early"; fi
  sleep 0.5
done
curl -fs "$base/ready" >/dev/null 2>&1 || fail "the server did not become ready"

# The banner: a new database gets one ADMIN key, shown once on the terminal.
key=""
for _ in $(seq 1 20); do
  key="$(grep -oE 'lhk_[A-Za-z0-9_-]{43}' "$dir/stderr.log" | head -1 || true)"
  [[ -n "$key" ]] && break
  sleep 0.25
done
[[ -n "$key" ]] || fail "no ADMIN key on stderr"
grep -q 'this database had no API keys, so an ADMIN key was made' "$dir/stderr.log" || fail "the first-run banner is missing"
grep -qF "\"Authorization\": \"Bearer $key\"" "$dir/stderr.log" || fail "the banner does not show the Authorization header to paste"
echo "npm start printed the first ADMIN key (${key:0:12}…) on stderr"

# Anonymous requests are refused with 401 UNAUTHENTICATED.
status="$(curl -s -o "$dir/anonymous.json" -w '%{http_code}' "$base/graphql" -H 'content-type: application/json' \
  -d '{"query":"{ viewer { name roles } }"}')"
[[ "$status" == 401 ]] || fail "an anonymous request got HTTP $status, not 401: $(cat "$dir/anonymous.json")"
grep -q '"code":"UNAUTHENTICATED"' "$dir/anonymous.json" || fail "the 401 does not say UNAUTHENTICATED: $(cat "$dir/anonymous.json")"
echo "an anonymous request was refused: HTTP 401 UNAUTHENTICATED"

# The key authenticates as "admin" with the ADMIN role, and an ADMIN may set up categories.
viewer="$(curl -fs "$base/graphql" -H 'content-type: application/json' -H "authorization: Bearer $key" \
  -d '{"query":"{ viewer { name roles } }"}')" || fail "the authenticated request failed"
echo "npm start answered: $viewer"
[[ "$viewer" == '{"data":{"viewer":{"name":"admin","roles":["ADMIN"]}}}' ]] || fail "unexpected viewer: $viewer"
answer="$(curl -fs "$base/graphql" -H 'content-type: application/json' -H "authorization: Bearer $key" \
  -d '{"query":"mutation { addCategories(input: {names: [\"smoke\"]}) { __typename } }"}')" || fail "addCategories failed"
[[ "$answer" == *AddCategoriesPayload* ]] || fail "addCategories answered: $answer"
[[ -f "$dir/smoke.db" ]] || fail "database file was not created"

# npm start runs node as a child; signal the server process itself.
server_pid="$(pgrep -f "node dist/main.js" -P "$(pgrep -P "$pid" | head -1)" 2>/dev/null || true)"
kill -TERM "${server_pid:-$pid}" 2>/dev/null || true
wait "$pid" || true
if curl -fs "$base/health" >/dev/null 2>&1; then echo "server still running after SIGTERM" >&2; exit 1; fi
# The key went to the terminal only: never into the log.
if grep -qF "${key:12}" "$dir/server.log"; then fail "the ADMIN key appears in the log"; fi
grep -q 'made the first ADMIN API key' "$dir/server.log" || fail "the log does not record that the first key was made"

# A second start on the same database makes no key and prints none; the first key still works.
DATABASE_URL="file:$dir/smoke.db" PORT="$port" LOG_LEVEL=warn node dist/main.js >"$dir/server.log" 2>"$dir/stderr.log" &
pid=$!
for _ in $(seq 1 60); do
  if curl -fs "$base/ready" >/dev/null 2>&1; then break; fi
  if ! kill -0 "$pid" 2>/dev/null; then fail "the second start exited early"; fi
  sleep 0.5
done
again="$(curl -fs "$base/graphql" -H 'content-type: application/json' -H "authorization: Bearer $key" \
  -d '{"query":"{ viewer { name } categories { name } }"}')" || fail "the first key no longer works"
kill -TERM "$pid" 2>/dev/null || true
wait "$pid" || true
[[ "$again" == '{"data":{"viewer":{"name":"admin"},"categories":[{"name":"smoke"}]}}' ]] || fail "second start answered: $again"
if grep -qE 'lhk_|API keys' "$dir/stderr.log"; then fail "the second start printed a key banner"; fi
echo "README smoke test ok: npm start served a fresh database with its first ADMIN key (shown once) and stopped on SIGTERM"
