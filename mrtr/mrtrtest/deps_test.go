package mrtrtest_test

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// databaseClients are the import path prefixes of the database client
// modules the stores link.
var databaseClients = map[string]string{
	"pgx":      "github.com/jackc/pgx/",
	"go-redis": "github.com/redis/go-redis/",
	"sqlite":   "modernc.org/sqlite",
}

// TestDependenciesFollowUse keeps database clients out of what does not use
// them: mrtrtest (and so every generated test binary) links none, the
// generated examples' tests link none, and each store backend links its own
// client only, so a server that imports one backend directly (not
// storeopen, which links all three) carries one.
func TestDependenciesFollowUse(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skipping go list of the module's packages")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		test  bool // go list -test: the package's test binary too
		pkg   string
		allow string // the one client this package may link
	}{
		{false, "./mrtr", ""},
		{false, "./mrtr/mrtrtest", ""},
		{false, "./mrtr/testclock", ""},
		{true, "./examples/generated/conformance", ""},
		{true, "./examples/generated/customers", ""},
		{true, "./examples/generated/onboarding", ""},
		{true, "./examples/generated/payments", ""},
		{true, "./examples/generated/tickets", ""},
		{true, "./mrtr/internal/testprog", ""},
		{false, "./examples/domain", ""},
		{false, "./mrtr/store/sqlitestore", "sqlite"},
		{false, "./mrtr/store/pgstore", "pgx"},
		{false, "./mrtr/store/redisstore", "go-redis"},
		{true, "./mrtr/tasks", ""},
		{false, "./mrtr/tasks/taskstest", ""},
		{false, "./mrtr/tasks/sqlitetasks", "sqlite"},
		{false, "./mrtr/tasks/pgtasks", "pgx"},
		{false, "./mrtr/tasks/redistasks", "go-redis"},
	} {
		args := []string{"list", "-deps"}
		if c.test {
			args = append(args, "-test")
		}
		cmd := exec.Command("go", append(args, c.pkg)...)
		cmd.Dir = root
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("go %s: %v", strings.Join(append(args, c.pkg), " "), err)
		}
		linked := map[string]bool{}
		for dep := range strings.FieldsSeq(string(out)) {
			for name, prefix := range databaseClients {
				if strings.HasPrefix(dep, prefix) {
					linked[name] = true
				}
			}
		}
		for name := range databaseClients {
			if linked[name] && name != c.allow {
				t.Errorf("go %s links %s: it does not use it (move what pulls it in to a package of its own)", strings.Join(append(args, c.pkg), " "), name)
			}
		}
		if c.allow != "" && !linked[c.allow] {
			t.Errorf("go list -deps %s no longer shows %s: update this test's table", c.pkg, c.allow)
		}
	}
}
