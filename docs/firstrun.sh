#!/usr/bin/env bash
# The quick start as a newcomer meets it (docs/benchmarks.md, "First run"):
# a fresh clone of this checkout's HEAD, empty module and build caches, the
# README's first command, then the two-round curl recipe of
# examples/server/README.md as soon as /healthz answers. Prints the seconds
# from `go run` to the server's first answer and to the completed workflow.
# Needs bash, git, curl, jq and bc, and port 8080 free. Run from anywhere:
#   nice -n -15 bash docs/firstrun.sh
set -euo pipefail
repo=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
work=$(mktemp -d)
server=
cleanup() {
  if [ -n "$server" ]; then kill -- -"$server" 2>/dev/null || true; fi
  sleep 1
  GOMODCACHE="$work/mod" go clean -modcache 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
git clone -q "$repo" "$work/mrtrgen"
cd "$work/mrtrgen"
export GOCACHE="$work/cache" GOMODCACHE="$work/mod"
unset GOFLAGS CI
if curl -s -o /dev/null localhost:8080/healthz; then
  echo "something already listens on port 8080" >&2; exit 1
fi
start=$(date +%s.%N)
set -m # the server gets a process group of its own: the cleanup stops go run and its child
go run ./examples/server -dev >"$work/server.log" 2>&1 &
server=$!
set +m
until curl -s -o /dev/null localhost:8080/healthz; do
  kill -0 "$server" 2>/dev/null || { cat "$work/server.log" >&2; exit 1; }
  sleep 0.2
done
up=$(date +%s.%N)
H=(-H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream'
   -H 'Mcp-Protocol-Version: 2026-07-28' -H 'Mcp-Method: tools/call' -H 'Mcp-Name: close_support_ticket')
META='"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}'
curl -s "${H[@]}" localhost:8080/mcp -d '{"jsonrpc":"2.0","id":1,"method":"tools/call",
  "params":{"name":"close_support_ticket","arguments":{"ticketId":"12345"},'"$META"'}}' >"$work/round1.json"
STATE=$(jq -r .result.requestState "$work/round1.json")
curl -s "${H[@]}" localhost:8080/mcp -d '{"jsonrpc":"2.0","id":2,"method":"tools/call",
  "params":{"name":"close_support_ticket","arguments":{"ticketId":"12345"},"requestState":"'"$STATE"'",
  "inputResponses":{"reason":{"action":"accept","content":{"closeReason":"resolved"}}},'"$META"'}}' |
  jq -c .result.content
done=$(date +%s.%N)
echo "server up after $(echo "$up - $start" | bc) s; workflow done after $(echo "$done - $start" | bc) s"
du -sh "$work/mod" "$work/cache"
