#!/usr/bin/env bash
# Static analysis: staticcheck on every package (generated code included:
# the examples are what users' modules get), then golangci-lint with
# .golangci.yml (hand-written code; generated files are excluded there).
# Both are pinned here and installed with `go install` from the module
# proxy into LINT_BIN (default: $(go env GOPATH)/bin, which outlives a
# clone), skipped when the pinned version, built by this Go, is already
# there. Run alone with: bash .ci/lint.sh
set -euo pipefail
cd "$(dirname "$0")/.."

STATICCHECK_VERSION=v0.8.2     # honnef.co/go/tools, staticcheck 2026.2.2
GOLANGCI_LINT_VERSION=v2.15.0  # github.com/golangci/golangci-lint/v2

LINT_BIN="${LINT_BIN:-$(go env GOPATH)/bin}"
mkdir -p "$LINT_BIN"

# install NAME PACKAGE VERSION: go install PACKAGE@VERSION into LINT_BIN
# unless LINT_BIN/NAME is that module version built by this toolchain (a
# binary built by an older Go cannot load packages of a newer one).
install() {
  local name=$1 pkg=$2 version=$3 bin="$LINT_BIN/$1"
  if [ -x "$bin" ]; then
    local info
    info=$(go version -m "$bin" 2>/dev/null || true)
    if [ "$(awk 'NR==1{print $2}' <<<"$info")" = "$(go env GOVERSION)" ] &&
       awk -v v="$version" '$1=="mod" && $3==v {found=1} END{exit !found}' <<<"$info"; then
      echo "$name $version: cached in $LINT_BIN"
      return
    fi
  fi
  echo "$name $version: installing into $LINT_BIN"
  # GOFLAGS=-mod=readonly (set by .ci/run) does not apply to pkg@version.
  GOFLAGS= GOBIN="$LINT_BIN" go install "$pkg@$version"
}

install staticcheck honnef.co/go/tools/cmd/staticcheck "$STATICCHECK_VERSION"
install golangci-lint github.com/golangci/golangci-lint/v2/cmd/golangci-lint "$GOLANGCI_LINT_VERSION"

echo "staticcheck ./..."
"$LINT_BIN/staticcheck" ./...
echo "golangci-lint run ./..."
"$LINT_BIN/golangci-lint" run ./...
