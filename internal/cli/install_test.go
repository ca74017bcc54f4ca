package cli

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mrtrgen/mrtrgen/internal/modcache"
)

// proxyVersion is the version the test publishes this checkout as.
const proxyVersion = "v0.9.0"

// The README's one install line once mrtrgen is published,
//
//	go get -tool github.com/mrtrgen/mrtrgen/cmd/mrtrgen@vX.Y.Z
//
// works today: this checkout is served as that version from a module proxy
// on disk (the layout proxy.golang.org serves: list, .info, .mod, .zip),
// and a fresh module gets mrtrgen from it as a tool, runs it, and sees the
// version it asked for (issue 28 item 4). The other modules come from this
// machine's module cache, which is a proxy of the same layout. The module
// cache of the test is its own, so the made-up version never reaches the
// shared one; and the checksum database cannot know it (GOSUMDB=off).
func TestInstallFromModuleProxy(t *testing.T) {
	if testing.Short() {
		t.Skip("builds mrtrgen in a fresh module cache; skipped with -short")
	}
	root := repoRoot(t)
	// The line the README gives, with a version for X.Y.Z.
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	const line = "$ go get -tool " + modulePath + "/cmd/mrtrgen@vX.Y.Z"
	if !strings.Contains(string(readme), "\n"+line+"\n") {
		t.Fatalf("README.md does not give the install line %q", line)
	}
	args := strings.Fields(strings.Replace(strings.TrimPrefix(line, "$ go "), "vX.Y.Z", proxyVersion, 1))
	if err := modcache.Download(root); err != nil {
		t.Fatal(err)
	}
	proxy := t.TempDir()
	publish(t, root, proxy, proxyVersion)

	mod := filepath.Join(t.TempDir(), "tickets")
	if err := os.Mkdir(mod, 0o755); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(),
		"GOPROXY=file://"+filepath.ToSlash(proxy)+",file://"+filepath.ToSlash(filepath.Join(goEnv(t, "GOMODCACHE"), "cache", "download")),
		"GOMODCACHE="+filepath.Join(t.TempDir(), "modcache"),
		"GOFLAGS=-modcacherw", // so that the test's cache can be removed
		"GOSUMDB=off",
		"GOWORK=off",
		"GOTOOLCHAIN=local",
	)
	goCmd := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("go", args...)
		cmd.Dir, cmd.Env = mod, env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	start := time.Now()
	goCmd("mod", "init", "example.com/tickets")
	goCmd(args...)
	gomod, err := os.ReadFile(filepath.Join(mod, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"tool " + modulePath + "/cmd/mrtrgen", modulePath + " " + proxyVersion} {
		if !strings.Contains(string(gomod), want) {
			t.Errorf("go.mod does not have %q:\n%s", want, gomod)
		}
	}
	if got, want := goCmd("tool", "mrtrgen", "version"), "mrtrgen "+proxyVersion+"\n"; got != want {
		t.Errorf("go tool mrtrgen version printed %q, want %q", got, want)
	}
	// The installed tool does its first job.
	goCmd("tool", "mrtrgen", "init", "tickets")
	goCmd("tool", "mrtrgen", "lint", "--strict", "tickets.mrtr.yaml")
	t.Logf("go mod init, go get -tool @%s, go tool mrtrgen version, init, lint: %s", proxyVersion, time.Since(start).Round(time.Second))
}

// publish writes the module at root into proxy as version, by the rules of
// module zip files (what golang.org/x/mod/zip.CreateFromDir writes, which
// this module does not depend on): every file of the module under
// "PATH@VERSION/", without directories that hold another module (bench),
// without version control directories, vendor directories or symbolic
// links. The files are those Git has or would add (untracked files not
// ignored), so build outputs stay out, as they do from a tag.
func publish(t *testing.T, root, proxy, version string) {
	t.Helper()
	out, err := exec.Command("git", "-C", root, "ls-files", "-z", "--cached", "--others", "--exclude-standard").Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	files := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	nested := map[string]bool{}
	for _, f := range files {
		if path.Base(f) == "go.mod" && f != "go.mod" {
			nested[path.Dir(f)] = true
		}
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	prefix := modulePath + "@" + version + "/"
	n := 0
	for _, f := range files {
		if skipInModuleZip(f, nested) {
			continue
		}
		fi, err := os.Lstat(filepath.Join(root, filepath.FromSlash(f)))
		if os.IsNotExist(err) {
			continue // deleted in the work tree, not yet in the index
		}
		if err != nil {
			t.Fatal(err)
		}
		if !fi.Mode().IsRegular() {
			continue
		}
		data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(f)))
		if err != nil {
			t.Fatal(err)
		}
		w, err := zw.Create(prefix + f)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(data); err != nil {
			t.Fatal(err)
		}
		n++
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if buf.Len() > 500<<20 {
		t.Fatalf("the module zip has %d bytes, over the 500 MiB the go command accepts", buf.Len())
	}
	gomod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	info, err := json.Marshal(map[string]string{"Version": version, "Time": "2026-01-01T00:00:00Z"})
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(proxy, filepath.FromSlash(modulePath), "@v")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{
		"list":            []byte(version + "\n"),
		version + ".info": info,
		version + ".mod":  gomod,
		version + ".zip":  buf.Bytes(),
	} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("published %s@%s: %d files, %d bytes zipped", modulePath, version, n, buf.Len())
}

// skipInModuleZip reports whether a file of the repository stays out of
// the module zip: it belongs to a nested module, or sits in a vendor or
// version control directory.
func skipInModuleZip(f string, nested map[string]bool) bool {
	for d := path.Dir(f); d != "."; d = path.Dir(d) {
		if nested[d] {
			return true
		}
		switch path.Base(d) {
		case "vendor", ".git", ".hg", ".svn", ".bzr":
			return true
		}
	}
	return false
}
