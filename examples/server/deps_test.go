package main

import (
	"os/exec"
	"strings"
	"testing"
)

// fleetOnly are the import path prefixes a quick start does not need: the
// PostgreSQL and Redis clients, River, and the OpenTelemetry SDK (the
// runtime links the OpenTelemetry API alone).
var fleetOnly = []string{
	"github.com/jackc/pgx/",
	"github.com/redis/go-redis/",
	"github.com/riverqueue/river",
	"go.opentelemetry.io/otel/sdk",
}

// TestQuickStartLinksNoFleetBackend keeps `go run ./examples/server -dev`
// fast on a fresh clone: the command links SQLite alone, and the fleet
// build (which the check is shown to catch) links what it leaves out.
func TestQuickStartLinksNoFleetBackend(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skipping go list")
	}
	deps := func(pkg string) string {
		out, err := exec.Command("go", "list", "-deps", pkg).CombinedOutput()
		if err != nil {
			t.Fatalf("go list -deps %s: %v\n%s", pkg, err, out)
		}
		return string(out)
	}
	quick, fleet := deps("."), deps("./fleet")
	if !strings.Contains(quick, "\nmodernc.org/sqlite\n") {
		t.Error("examples/server does not link SQLite, its default store")
	}
	for _, p := range fleetOnly[:3] {
		if !strings.Contains(fleet, "\n"+p) {
			t.Errorf("examples/server/fleet does not link %s", p)
		}
	}
	for _, line := range strings.Split(quick, "\n") {
		for _, p := range fleetOnly {
			if strings.HasPrefix(line, p) {
				t.Errorf("examples/server links %s: it belongs to the fleet build (examples/server/fleet)", line)
			}
		}
	}
}
