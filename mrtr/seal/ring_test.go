package seal

import (
	"encoding/base64"
	"log"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

var (
	sec1 = base64.RawURLEncoding.EncodeToString(secretOf(0x11))
	sec2 = base64.RawURLEncoding.EncodeToString(secretOf(0x22))
	sec3 = base64.RawURLEncoding.EncodeToString(secretOf(0x33))
)

func TestNewRing(t *testing.T) {
	if _, err := NewRing(); err == nil || !strings.Contains(err.Error(), "at least one key") {
		t.Errorf("empty ring: %v", err)
	}
	if _, err := NewRing(Key{ID: 1, Secret: make([]byte, 31)}); err == nil || !strings.Contains(err.Error(), "31 bytes, need at least 32") {
		t.Errorf("short secret: %v", err)
	}
	if _, err := NewRing(Key{ID: 1}); err == nil {
		t.Error("nil secret accepted")
	}
	if _, err := NewRing(Key{ID: 5, Secret: secretOf(1)}, Key{ID: 5, Secret: secretOf(2)}); err == nil || !strings.Contains(err.Error(), "id 5 is listed twice") {
		t.Errorf("duplicate id: %v", err)
	}
	r, err := NewRing(Key{ID: 9, Secret: secretOf(1)}, Key{ID: 0, Secret: make([]byte, 64)}, Key{ID: 1<<32 - 1, Secret: secretOf(3)})
	if err != nil {
		t.Fatal(err)
	}
	if r.SealingKeyID() != 9 || !slices.Equal(r.KeyIDs(), []uint32{9, 0, 1<<32 - 1}) {
		t.Errorf("ids %v, sealing %d", r.KeyIDs(), r.SealingKeyID())
	}
	// The ring does not alias the caller's secret.
	s := secretOf(4)
	r2 := mustRing(t, Key{ID: 1, Secret: s})
	c := New(r2, Options{})
	tok := mustSeal(t, c, testBinding, time.Minute, []byte("x"))
	clear(s)
	mustOpen(t, c, testBinding, tok, []byte("x"))
}

func TestParseRing(t *testing.T) {
	good := []struct {
		name string
		spec string
		ids  []uint32
	}{
		{"one", "1:" + sec1, []uint32{1}},
		{"comma", "2:" + sec2 + ",1:" + sec1, []uint32{2, 1}},
		{"comma and spaces", " 2 : " + sec2 + " , 1:" + sec1 + " ,", []uint32{2, 1}},
		{"lines", "2:" + sec2 + "\n1:" + sec1 + "\n", []uint32{2, 1}},
		{"crlf lines", "2:" + sec2 + "\r\n1:" + sec1 + "\r\n", []uint32{2, 1}},
		{"file with comments", "# requestState keys, first seals\n\n3:" + sec3 + "   # new, promoted 2026-11-29\n  # 2:retired\n1:" + sec1 + "\n\n", []uint32{3, 1}},
		{"max id", "4294967295:" + sec1, []uint32{4294967295}},
		{"long secret", "0:" + base64.RawURLEncoding.EncodeToString(make([]byte, 64)), []uint32{0}},
	}
	for _, tc := range good {
		r, err := ParseRing(tc.spec)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if !slices.Equal(r.KeyIDs(), tc.ids) {
			t.Errorf("%s: ids %v, want %v", tc.name, r.KeyIDs(), tc.ids)
		}
	}

	// A parsed ring interoperates with one built from the same keys.
	parsed, _ := ParseRing("2:" + sec2)
	built := mustRing(t, Key{ID: 2, Secret: secretOf(0x22)})
	tok := mustSeal(t, New(parsed, Options{}), testBinding, time.Minute, []byte("x"))
	mustOpen(t, New(built, Options{}), testBinding, tok, []byte("x"))

	bad := []struct {
		name, spec, want string
	}{
		{"empty", "", "no keys"},
		{"blank", " \n\n , ,\n", "no keys"},
		{"only comments", "# 1:" + sec1 + "\n#", "no keys"},
		{"no colon", sec1, "found no ':'"},
		{"bad id", "x:" + sec1, `key id "x" is not a decimal number`},
		{"negative id", "-1:" + sec1, "not a decimal number"},
		{"id too large", "4294967296:" + sec1, "not a decimal number"},
		{"empty id", ":" + sec1, "not a decimal number"},
		{"empty secret", "1:", "empty secret"},
		{"bad base64", "1:" + sec1[:20] + "!" + sec1[21:], "not base64url"},
		{"std alphabet", "1:" + strings.Repeat("+", 43), "not base64url"},
		{"padded", "1:" + base64.URLEncoding.EncodeToString(secretOf(1)), "not base64url"},
		{"short secret", "1:" + base64.RawURLEncoding.EncodeToString(make([]byte, 31)), "31 bytes, need at least 32"},
		{"duplicate id", "1:" + sec1 + ",1:" + sec2, "id 1 is listed twice"},
		{"second entry bad", "1:" + sec1 + "\n2:short", "entry 2 (line 2)"},
	}
	for _, tc := range bad {
		_, err := ParseRing(tc.spec)
		if err == nil {
			t.Errorf("%s: accepted", tc.name)
			continue
		}
		msg := err.Error()
		if !strings.Contains(msg, tc.want) {
			t.Errorf("%s: error %q does not mention %q", tc.name, msg, tc.want)
		}
		for _, s := range []string{sec1, sec2, sec1[:20]} {
			if strings.Contains(msg, s) {
				t.Errorf("%s: error %q echoes a secret", tc.name, msg)
			}
		}
	}
}

func TestRingFromEnv(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "keys")
	if err := os.WriteFile(file, []byte("# keys\n2:"+sec2+"\n1:"+sec1+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	badFile := filepath.Join(dir, "bad")
	if err := os.WriteFile(badFile, []byte("1:tooshort\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name       string
		keys, file string // "-" = unset
		ids        []uint32
		wantErr    string
	}{
		{"env spec", "2:" + sec2 + ",1:" + sec1, "-", []uint32{2, 1}, ""},
		{"file", "-", file, []uint32{2, 1}, ""},
		{"empty env ignored, file used", "", file, []uint32{2, 1}, ""},
		{"neither", "-", "-", nil, "no requestState keys configured"},
		{"both empty", "", "", nil, "no requestState keys configured"},
		{"both", "1:" + sec1, file, nil, "set only one"},
		{"bad env", "1:xx", "-", nil, "MRTR_KEYS: seal: key spec entry 1 (line 1)"},
		{"missing file", "-", filepath.Join(dir, "nope"), nil, "MRTR_KEYS_FILE"},
		{"bad file", "-", badFile, nil, "MRTR_KEYS_FILE=" + badFile},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			setOrUnset(t, EnvKeys, tc.keys)
			setOrUnset(t, EnvKeysFile, tc.file)
			r, err := RingFromEnv()
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(r.KeyIDs(), tc.ids) {
				t.Fatalf("ids %v, want %v", r.KeyIDs(), tc.ids)
			}
		})
	}
}

func setOrUnset(t *testing.T, name, value string) {
	t.Setenv(name, value) // registers restoration
	if value == "-" {
		os.Unsetenv(name)
	}
}

func TestEphemeralRing(t *testing.T) {
	var msgs []string
	r1, err := EphemeralRing(func(m string) { msgs = append(msgs, m) })
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) != 1 || !strings.Contains(msgs[0], "EPHEMERAL") || !strings.Contains(msgs[0], "restart") || !strings.Contains(msgs[0], EnvKeys) {
		t.Fatalf("warning %q", msgs)
	}
	r2, err := EphemeralRing(func(string) {})
	if err != nil {
		t.Fatal(err)
	}
	c1, c2 := New(r1, Options{}), New(r2, Options{})
	tok := mustSeal(t, c1, testBinding, time.Minute, []byte("x"))
	mustOpen(t, c1, testBinding, tok, []byte("x"))
	// Another process's ephemeral key (almost surely another id).
	wantReason(t, errOf(c2.Open(testBinding, tok)), "other ephemeral ring", UnknownKey, Forged)
}

func TestEphemeralRingNilWarnLogs(t *testing.T) {
	var buf strings.Builder
	log.SetOutput(&buf)
	defer log.SetOutput(os.Stderr)
	if _, err := EphemeralRing(nil); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "EPHEMERAL") {
		t.Fatalf("nil warn: logged %q", buf.String())
	}
}

func TestGenerateKeySpec(t *testing.T) {
	a, err := GenerateKeySpec(42)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := GenerateKeySpec(42)
	if a == b {
		t.Fatal("two generated keys are equal")
	}
	if !strings.HasPrefix(a, "42:") || len(a) != 3+43 {
		t.Fatalf("spec %q", a)
	}
	r, err := ParseRing(a)
	if err != nil || r.SealingKeyID() != 42 {
		t.Fatalf("ParseRing(GenerateKeySpec) = %v, %v", r, err)
	}
	c, _ := GenerateKeySpec(7)
	if _, err := ParseRing(c + "\n" + a); err != nil {
		t.Fatal(err)
	}
}

func TestNewReference(t *testing.T) {
	seen := map[string]bool{}
	for range 1000 {
		ref, err := NewReference()
		if err != nil {
			t.Fatal(err)
		}
		raw, err := b64.DecodeString(ref)
		if err != nil || len(raw) != 16 || len(ref) != 22 {
			t.Fatalf("reference %q: %d bytes, %v", ref, len(raw), err)
		}
		if seen[ref] {
			t.Fatal("reference repeated")
		}
		seen[ref] = true
	}
}
