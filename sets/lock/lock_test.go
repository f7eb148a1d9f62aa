package lock

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mjolnir-forge/forgesync/sets/settest"
)

func TestFingerprint(t *testing.T) {
	es := []Entry{{ID: "zeta-pack", Version: "2.0.0-rc.1", SHA256: settest.HashB}, {ID: "alpha-pack", Version: "1.0.0", SHA256: settest.HashA}}
	if got := Fingerprint(es); got != settest.FpAB {
		t.Errorf("Fingerprint(%v) = %s; want %s", es, got, settest.FpAB)
	}
	if es[0].ID != "zeta-pack" {
		t.Errorf("Fingerprint sorted its argument")
	}
	// The empty set is the SHA-256 of no bytes.
	if got, want := Fingerprint(nil), "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"; got != want {
		t.Errorf("Fingerprint(nil) = %s; want %s", got, want)
	}
	// A machine's fingerprint counts its enabled packs only.
	m := []Installed{{ID: "alpha-pack", Version: "1.0.0", SHA256: settest.HashA, Enabled: true}, {ID: "zeta-pack", Version: "2.0.0-rc.1", SHA256: settest.HashB, Enabled: true}, {ID: "other-pack", Version: "1.0.0", SHA256: settest.HashC, Enabled: false}}
	if got := MachineFingerprint(m); got != settest.FpAB {
		t.Errorf("MachineFingerprint = %s; want %s", got, settest.FpAB)
	}
}

func TestDecodeGood(t *testing.T) {
	l, err := Decode(LockName, []byte(settest.GoodLock), DecodeOptions{})
	if err != nil {
		t.Fatalf("Decode: %v", err)
	}
	if l.Name != "Foundry League, season 3" || len(l.Packs) != 2 {
		t.Fatalf("Decode = %+v", l)
	}
	z := l.Packs[0]
	if z.ID != "zeta-pack" || z.Version != "2.0.0-rc.1" || z.SHA256 != settest.HashB || z.Size != 1788 || len(z.URLs) != 2 || z.Line != 6 {
		t.Errorf("pack[0] = %+v", z)
	}
	if l.Packs[1].Line != 16 {
		t.Errorf("pack[1].Line = %d; want 16", l.Packs[1].Line)
	}
	if l.Fingerprint() != settest.FpAB {
		t.Errorf("Fingerprint = %s; want %s", l.Fingerprint(), settest.FpAB)
	}
}

func TestEncodeRoundTrip(t *testing.T) {
	l, err := Decode(LockName, []byte(settest.GoodLock), DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	l.Name = "quote \" backslash \\ ünïcode"
	out, err := Encode(l)
	if err != nil {
		t.Fatalf("Encode: %v", err)
	}
	back, err := Decode(LockName, out, DecodeOptions{})
	if err != nil {
		t.Fatalf("Decode(Encode) : %v\n%s", err, out)
	}
	if back.Name != l.Name || back.Fingerprint() != settest.FpAB || back.Packs[0].ID != "alpha-pack" {
		t.Errorf("round trip = %+v", back)
	}
	again, err := Encode(back)
	if err != nil || string(again) != string(out) {
		t.Errorf("Encode is not canonical:\n%s\n---\n%s", out, again)
	}
	if !strings.Contains(string(out), "fingerprint = \""+settest.FpAB+"\"\n") {
		t.Errorf("Encode wrote no fingerprint:\n%s", out)
	}
	// A pack without URLs encodes (an export fills them in; diff needs none).
	bare := &Lock{Packs: []Pack{{ID: "alpha-pack", Version: "1.0.0", SHA256: settest.HashA, Size: 1}}}
	if _, err := Encode(bare); err != nil {
		t.Errorf("Encode(no urls) = %v", err)
	}
	bad := &Lock{Packs: []Pack{{ID: "Alpha", Version: "1.0.0", SHA256: settest.HashA, Size: 1}}}
	if _, err := Encode(bad); !errors.Is(err, errInvalidLock) {
		t.Errorf("Encode(bad id) = %v; want ErrInvalidLock", err)
	}
}

// edit replaces old (which must occur) in the good lock.
func TestDecodeErrors(t *testing.T) {
	tests := []struct {
		name string
		text string
		line int
		want string
		opt  DecodeOptions
	}{
		{"syntax", settest.Edit(t, "size = 42", "size = = 42"), 20, "", DecodeOptions{}},
		{"duplicate key", settest.Edit(t, "size = 42", "size = 42\nsize = 43"), 21, "", DecodeOptions{}},
		{"unknown top key", settest.Edit(t, "version = 1\n", "version = 1\ncolour = \"red\"\n"), 3, "colour: unknown key", DecodeOptions{}},
		{"unknown pack key", settest.Edit(t, "size = 42", "size = 42\nname = \"A\""), 21, "pack[1].name: unknown key", DecodeOptions{}},
		{"format", settest.Edit(t, `format = "forgepacks-lock"`, `format = "packwiz"`), 1, `must be "forgepacks-lock"`, DecodeOptions{}},
		{"format missing", strings.Replace(settest.GoodLock, "format = \"forgepacks-lock\"\n", "", 1), 1, "format: missing", DecodeOptions{}},
		{"version", settest.Edit(t, "version = 1\n", "version = 2\n"), 2, "must be 1", DecodeOptions{}},
		{"version string", settest.Edit(t, "version = 1\n", "version = \"1\"\n"), 2, `found "1"`, DecodeOptions{}},
		{"bad id", settest.Edit(t, `id = "alpha-pack"`, `id = "Alpha_Pack"`), 17, "pack[1].id: \"Alpha_Pack\" is not a pack id", DecodeOptions{}},
		{"bad version", settest.Edit(t, `version = "1.0.0"`, `version = "v1.0"`), 18, "pack[1].version", DecodeOptions{}},
		{"long version", settest.Edit(t, `version = "1.0.0"`, `version = "1.0.0-`+strings.Repeat("x", 60)+`"`), 18, "at most 64 bytes", DecodeOptions{}},
		{"upper hex", settest.Edit(t, "sha256 = \"aaaa", "sha256 = \"AAAA"), 19, "lowercase hex", DecodeOptions{}},
		{"short hex", settest.Edit(t, "sha256 = \"aaaa", "sha256 = \"aaa"), 19, "64 lowercase hex", DecodeOptions{}},
		{"zero size", settest.Edit(t, "size = 42", "size = 0"), 20, "out of range", DecodeOptions{}},
		{"negative size", settest.Edit(t, "size = 42", "size = -5"), 20, "out of range", DecodeOptions{}},
		{"size over limit", settest.Edit(t, "size = 42", "size = 5000000000"), 20, "out of range", DecodeOptions{}},
		{"size over caller limit", settest.GoodLock, 10, "pack[0].size: 1788 is out of range", DecodeOptions{MaxArchiveBytes: 1000}},
		{"float size", settest.Edit(t, "size = 42", "size = 42.0"), 20, "must be an integer", DecodeOptions{}},
		{"duplicate id", settest.Edit(t, `id = "alpha-pack"`, `id = "zeta-pack"`), 17, `"zeta-pack" is pinned twice (first at line 6)`, DecodeOptions{}},
		{"duplicate archive", settest.Edit(t, "sha256 = \""+settest.HashA, "sha256 = \""+settest.HashB), 19, "the same archive is pinned", DecodeOptions{}},
		{"ftp url", settest.Edit(t, `"file:///srv/forge/a.zip"`, `"ftp://x.org/a.zip"`), 21, `"ftp://x.org/a.zip" has the scheme "ftp"`, DecodeOptions{}},
		{"template url", settest.Edit(t, `"file:///srv/forge/a.zip"`, `"packs/{sha256}{ext}"`), 21, "unexpanded template", DecodeOptions{}},
		{"empty url", settest.Edit(t, `"file:///srv/forge/a.zip"`, `""`), 21, "is empty", DecodeOptions{}},
		{"space url", settest.Edit(t, `"file:///srv/forge/a.zip"`, `"packs/a b.zip"`), 21, "space", DecodeOptions{}},
		{"no urls", settest.Edit(t, `urls = ["file:///srv/forge/a.zip"]`, `urls = []`), 21, "must be downloaded, and the pack lists no URL", DecodeOptions{}},
		{"no urls key", settest.Edit(t, "urls = [\"file:///srv/forge/a.zip\"]\n", ""), 16, "pack[1].urls: alpha-pack 1.0.0 must be downloaded", DecodeOptions{}},
		{"no urls, other pack held", settest.Edit(t, `urls = ["file:///srv/forge/a.zip"]`, `urls = []`), 21, "lists no URL", DecodeOptions{Have: func(s string) bool { return s == settest.HashB }}},
		{"missing sha256", settest.Edit(t, "sha256 = \"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"\n", ""), 16, "pack[1].sha256: missing", DecodeOptions{}},
		{"wrong fingerprint", settest.Edit(t, settest.FpAB, "sha256:"+settest.HashC), 4, "does not match the packs, whose fingerprint is " + settest.FpAB, DecodeOptions{}},
		{"malformed fingerprint", settest.Edit(t, settest.FpAB, "md5:abc"), 4, "must be \"sha256:\"", DecodeOptions{}},
		{"bom", "\ufeff" + settest.GoodLock, 1, "byte order mark", DecodeOptions{}},
		{"pack not a table", "format = \"forgepacks-lock\"\nversion = 1\npack = 3\n", 3, "must be [[pack]] tables", DecodeOptions{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Decode("set.lock", []byte(tc.text), tc.opt)
			var le *lockError
			if !errors.As(err, &le) || !errors.Is(err, errInvalidLock) {
				t.Fatalf("Decode = %v; want a *LockError", err)
			}
			msg := err.Error()
			prefix := fmt.Sprintf("set.lock:%d: ", tc.line)
			if !strings.HasPrefix(msg, prefix) || !strings.Contains(msg, tc.want) {
				t.Errorf("Decode error = %q; want %q…%q", msg, prefix, tc.want)
			}
		})
	}
}

// TestDecodeGivenNamesNoLocalFile: a lock given as text may name no
// file: URL, as a pack's mirror, its index or the chunk store, each
// refused with its line and the URL; its relative URLs resolve to nothing,
// so a pack that must be downloaded needs an absolute one.
func TestDecodeGivenNamesNoLocalFile(t *testing.T) {
	given := DecodeOptions{Given: true}
	index := "\nindex = {url = \"file:///srv/forge/a.caibx\", sha256 = \"" + settest.HashC + "\"}"
	tests := []struct {
		name string
		text string
		opt  DecodeOptions
		line int
		want string
	}{
		{"file url", settest.GoodLock, given, 21, `pack[1].urls[0]: "file:///srv/forge/a.zip" names a local file`},
		{"file url, upper case", settest.Edit(t, "file:///", "FILE:///"), given, 21, `"FILE:///srv/forge/a.zip" names a local file`},
		{"file url, archive held", settest.GoodLock, DecodeOptions{Given: true, Have: HaveAll}, 21, "names a local file"},
		{"file index", settest.Edit(t, `urls = ["file:///srv/forge/a.zip"]`, `urls = ["https://cdn.example.org/a.zip"]`+index), given, 22, `pack[1].index.url: "file:///srv/forge/a.caibx" names a local file`},
		{"file chunks", settest.Edit(t, "version = 1\n", "version = 1\nchunks = [\"https://cdn.example.org/chunks/\", \"file:///var/chunks/\"]\n"), given, 3, `chunks[1]: "file:///var/chunks/" names a local file`},
		{"relative urls only", settest.Edit(t, `"file:///srv/forge/a.zip"`, `"packs/a.zip"`), given, 21, "a lock given as text has no location for its relative URLs (packs/a.zip)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Decode("request body", []byte(tc.text), tc.opt)
			prefix := fmt.Sprintf("request body:%d: ", tc.line)
			if !errors.Is(err, errInvalidLock) || !strings.Contains(err.Error(), prefix) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Decode(given) = %v; want %q…%q", err, prefix, tc.want)
			}
			if _, err := Decode(LockName, []byte(tc.text), DecodeOptions{Have: tc.opt.Have}); err != nil {
				t.Errorf("Decode(read from a path) = %v; want it allowed", err)
			}
		})
	}
	// A relative URL beside an absolute one, or for a pack the machine
	// holds, costs nothing.
	for _, text := range []string{
		settest.Edit(t, `"file:///srv/forge/a.zip"`, `"packs/a.zip", "https://cdn.example.org/a.zip"`),
		settest.Edit(t, `"file:///srv/forge/a.zip"`, `"packs/a.zip"`),
	} {
		opt := DecodeOptions{Given: true, Have: func(s string) bool { return s == settest.HashA }}
		if strings.Contains(text, "https://cdn") {
			opt.Have = nil
		}
		if _, err := Decode("request body", []byte(text), opt); err != nil {
			t.Errorf("Decode(given, %+v) = %v; want it allowed", opt, err)
		}
	}
}

func TestDecodeAllowed(t *testing.T) {
	tests := []struct {
		name string
		text string
		opt  DecodeOptions
	}{
		{"no urls, archive held", settest.Edit(t, `urls = ["file:///srv/forge/a.zip"]`, `urls = []`), DecodeOptions{Have: func(s string) bool { return s == settest.HashA }}},
		{"no urls, HaveAll", settest.Edit(t, `urls = ["file:///srv/forge/a.zip"]`, `urls = []`), DecodeOptions{Have: HaveAll}},
		{"no fingerprint", settest.Edit(t, "fingerprint = \""+settest.FpAB+"\"\n", ""), DecodeOptions{}},
		{"no name", settest.Edit(t, "name = \"Foundry League, season 3\"   # a comment\n", ""), DecodeOptions{}},
		{"empty set", "format = \"forgepacks-lock\"\nversion = 1\n", DecodeOptions{}},
		{"inline packs", "format = \"forgepacks-lock\"\nversion = 1\npack = [{id = \"alpha-pack\", version = \"1.0.0\", sha256 = \"" + settest.HashA + "\", size = 1, urls = [\"a.zip\"]}]\n", DecodeOptions{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := Decode(LockName, []byte(tc.text), tc.opt); err != nil {
				t.Errorf("Decode = %v; want nil", err)
			}
		})
	}
}

func TestDecodeTooManyPacks(t *testing.T) {
	l := &Lock{}
	for i := range maxPacks + 1 {
		sum := fmt.Sprintf("%064x", i)
		l.Packs = append(l.Packs, Pack{ID: fmt.Sprintf("pack-%04d", i), Version: "1.0.0", SHA256: sum, Size: 1})
	}
	if _, err := Encode(l); err == nil || !strings.Contains(err.Error(), "1025 packs, over the limit of 1024") {
		t.Errorf("Encode(1025 packs) = %v; want over the limit", err)
	}
	l.Packs = l.Packs[:maxPacks]
	if _, err := Encode(l); err != nil {
		t.Errorf("Encode(1024 packs) = %v", err)
	}
}

func TestDecodeReportsEveryProblem(t *testing.T) {
	text := settest.Edit(t, "size = 42", "size = 0")
	text = strings.Replace(text, `version = "2.0.0-rc.1"`, `version = "two"`, 1)
	_, err := Decode(LockName, []byte(text), DecodeOptions{})
	var le *lockError
	if !errors.As(err, &le) {
		t.Fatalf("Decode = %v", err)
	}
	lines := []int{}
	for _, p := range le.Problems {
		lines = append(lines, p.Line)
	}
	if !slices.Equal(lines, []int{8, 20}) {
		t.Errorf("problem lines = %v; want [8 20] (%v)", lines, err)
	}
}

// TestDecodeTestdata decodes the example locks of testdata/: the one
// `forgesync export` wrote for the two companion packs (its fingerprint
// line is the one the CLI computed) and one in another TOML style.
func TestDecodeTestdata(t *testing.T) {
	for _, name := range []string{"league.lock", "inline.lock"} {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		l, err := Decode(name, data, DecodeOptions{})
		if err != nil {
			t.Errorf("Decode(%s) = %v", name, err)
			continue
		}
		out, err := Encode(l)
		if err != nil {
			t.Errorf("Encode(%s) = %v", name, err)
		}
		if name == "league.lock" && string(out) != string(data) {
			t.Errorf("%s is not canonical; Encode gives\n%s", name, out)
		}
	}
}

func FuzzDecode(f *testing.F) {
	for _, name := range []string{"league.lock", "inline.lock"} {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(settest.GoodLock))
	f.Add([]byte("format = \"forgepacks-lock\"\nversion = 1\n"))
	f.Add([]byte("pack = [{}]\n[[x]]\n\"a\" = '''\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		l, err := Decode(LockName, data, DecodeOptions{Have: HaveAll})
		if err != nil {
			var le *lockError
			if !errors.As(err, &le) || len(le.Problems) == 0 {
				t.Fatalf("Decode error %v is not a *LockError with problems", err)
			}
			return
		}
		out, err := Encode(l)
		if err != nil {
			t.Fatalf("Encode(Decode(x)) = %v", err)
		}
		back, err := Decode(LockName, out, DecodeOptions{Have: HaveAll})
		if err != nil || back.Fingerprint() != l.Fingerprint() {
			t.Fatalf("Decode(Encode(l)) = %v", err)
		}
	})
}

// TestDecodeLinesOtherStyles checks the lines named for packs written
// inline, and after a string that spans lines.
func TestDecodeLinesOtherStyles(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "inline.lock"))
	if err != nil {
		t.Fatal(err)
	}
	bad := strings.Replace(string(data), `"alpha-pack"`, `"Alpha"`, 1)
	if _, err := Decode("x.lock", []byte(bad), DecodeOptions{}); err == nil || !strings.HasPrefix(err.Error(), "x.lock:6: pack[0].id:") {
		t.Errorf("Decode(inline, bad id) = %v; want line 6, where pack = [ starts", err)
	}
	bad = string(data) + "extra = 1\n"
	if _, err := Decode("x.lock", []byte(bad), DecodeOptions{}); err == nil || !strings.HasPrefix(err.Error(), "x.lock:9: extra: unknown key") {
		t.Errorf("Decode(extra key after a two-line string) = %v; want line 9", err)
	}
}

func TestLockErrorEscaped(t *testing.T) {
	text := strings.Replace(settest.GoodLock, `fingerprint = "`+settest.FpAB+`"`, "fingerprint = \"sha256:\u202e\\u001b[2J\"", 1)
	_, err := Decode("evil\x1b.lock", []byte(text), DecodeOptions{Have: HaveAll})
	if err == nil || strings.ContainsAny(err.Error(), "\x1b\u202e") || !strings.Contains(err.Error(), `evil\x1b.lock:4: fingerprint: must be`) {
		t.Errorf("Decode(hostile fingerprint) = %q; want the error escaped", err)
	}
}
