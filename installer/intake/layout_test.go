package intake

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// writePackDir writes entries (files and folders) below root.
// checkDir returns every rule of SPEC §2 the pack folder dir breaks, as
// ListPack does; the error is only for a folder that cannot be read.
func checkDir(dir string, lim Limits) ([]Problem, error) {
	l, err := ListPack(dir, lim, nil)
	if err != nil {
		return nil, err
	}
	return l.Problems, nil
}

func writePackDir(t *testing.T, root string, es []entry) {
	t.Helper()
	for _, e := range es {
		p := filepath.Join(root, filepath.FromSlash(e.name))
		if strings.HasSuffix(e.name, "/") {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, e.body, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestListPackGood(t *testing.T) {
	for _, prefix := range []string{"", "foundry-wide/"} {
		dir := t.TempDir()
		writePackDir(t, dir, goodPack(prefix))
		l, err := ListPack(dir, DefaultLimits(), nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(l.Problems) != 0 {
			t.Errorf("ListPack(%q) problems = %v; want none", prefix, l.Problems)
		}
		if !slices.Equal(l.Files, goodFiles()) {
			t.Errorf("ListPack(%q).Files = %v; want %v", prefix, l.Files, goodFiles())
		}
		if want := filepath.Join(dir, filepath.FromSlash(prefix)); filepath.Clean(l.Root) != filepath.Clean(want) {
			t.Errorf("ListPack(%q).Root = %s; want %s", prefix, l.Root, want)
		}
	}
}

func TestCheckDirProblems(t *testing.T) {
	for _, tc := range []struct {
		name  string
		es    []entry
		lim   func(*Limits)
		wants []want
	}{
		{"code", with(file("content/x.dll", "MZ"), file("lifts.lua", "x")), nil, []want{w("content/x.dll", RuleNotAllowed), w("lifts.lua", RuleNotAllowed)}},
		{"nested archive", with(file("content/x.7z", "7z")), nil, []want{w("content/x.7z", RuleNotAllowed)}},
		{"missing manifest", without("forgepack.json"), nil, []want{w("forgepack.json", RuleMissingManifest)}},
		{"lone ucas", without("content/foundry.utoc"), nil, []want{w("content/foundry.ucas", RuleMissingUtoc)}},
		{"case duplicate", with(file("content/EXTRA.pak", "x")), nil, []want{{rule: RuleDuplicate, anyEntry: true}}},
		{"reserved", with(file("content/aux.pak", "x")), nil, []want{w("content/aux.pak", RuleReserved)}},
		{"trailing space", with(file("content/a.pak ", "x")), nil, []want{w("content/a.pak ", RuleTrailingDotSpace)}},
		{"8.3 short-name alias", with(file("content/averylongname.pak", "x"), file("content/AVERYL~1.PAK", "y")), nil, []want{w("content/AVERYL~1.PAK", RuleShortName)}},
		{"manifest too large", append(without("forgepack.json"), entry{name: "forgepack.json", body: make([]byte, maxManifestBytes+1)}), nil, []want{w("forgepack.json", RuleEntryTooLarge)}},
		{"entry too large", with(entry{name: "content/big.pak", body: make([]byte, 2048)}), func(l *Limits) { l.MaxEntryBytes = 1024 }, []want{w("content/big.pak", RuleEntryTooLarge)}},
		{"too many", goodPack(""), func(l *Limits) { l.MaxEntries = 3 }, []want{{rule: RuleTooManyEntries, anyEntry: true}}},
		{"too deep", with(file("content/1/2/3/4/5/6/7/x.pak", "x")), nil, []want{w("content/1/2/3/4/5/6/7/x.pak", RuleTooDeep)}},
		{"readme nested", with(file("content/README.md", "x")), nil, []want{w("content/README.md", RuleNotAllowed)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			writePackDir(t, dir, tc.es)
			lim := DefaultLimits()
			if tc.lim != nil {
				tc.lim(&lim)
			}
			ps, err := checkDir(dir, lim)
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tc.wants {
				if !hasAny(ps, []want{w}) {
					t.Errorf("CheckDir problems = %v; want %q: %s", ps, w.entry, w.rule)
				}
			}
		})
	}
}

// TestCheckDirMatchesExtract holds the one-implementation promise: the
// same tree gives the same problems as a folder and as a zip.
func TestCheckDirMatchesExtract(t *testing.T) {
	es := with(file("content/x.dll", "MZ"), file("content/COM1.pak", "x"), file("loose.pak", "x"), file("content/a.ucas", "x"))
	dir := t.TempDir()
	writePackDir(t, dir, es)
	fromDir, err := checkDir(dir, DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	re := mustReject(t, writeArchive(t, "p.zip", zipBytes(t, es)), DefaultLimits())
	sortProblems := func(ps []Problem) []string {
		var s []string
		for _, p := range ps {
			s = append(s, p.String())
		}
		slices.Sort(s)
		return s
	}
	if a, b := sortProblems(fromDir), sortProblems(re.Problems); !slices.Equal(a, b) {
		t.Errorf("CheckDir = %q\nExtract  = %q\nwant the same", a, b)
	}
}

func TestListPackUnreadable(t *testing.T) {
	if _, err := ListPack(filepath.Join(t.TempDir(), "missing"), DefaultLimits(), nil); err == nil {
		t.Errorf("ListPack(missing) = nil error; want one")
	}
	f := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(f, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ListPack(f, DefaultLimits(), nil); err == nil {
		t.Errorf("ListPack(file) = nil error; want one")
	}
}

// TestGrowStreamsLimits checks the streamed limits on their own: headers
// may say nothing, and the counted bytes decide.
func TestGrowStreamsLimits(t *testing.T) {
	lim := DefaultLimits()
	lim.MaxEntryBytes = 4 << 20
	lim.MaxTotalBytes = 6 << 20
	c := newPackCheck(lim)
	_, act, max, idx, ok := c.admit("content/a.pak", typeFile, 0)
	if !ok || act != actWrite || max != 4<<20 {
		t.Fatalf("admit = %v, %d, %v; want write with max 4 MiB", act, max, ok)
	}
	if write, ok := c.grow("content/a.pak", idx, max, 4<<20, 4<<20, -1); !write || !ok {
		t.Fatalf("grow(at the limit) = %v, %v; want true, true", write, ok)
	}
	if _, ok := c.grow("content/a.pak", idx, max, 4<<20+1, 1, -1); ok {
		t.Errorf("grow(past the entry limit) ok; want stop")
	}
	c = newPackCheck(lim)
	_, _, max, idx, _ = c.admit("content/b.pak", typeFile, 0)
	c.grow("content/b.pak", idx, max, 3<<20, 3<<20, -1)
	_, _, max, idx, _ = c.admit("content/c.pak", typeFile, 0)
	if _, ok := c.grow("content/c.pak", idx, max, 3<<20+1, 3<<20+1, -1); ok || c.problems[0].Rule != RuleTotalTooLarge {
		t.Errorf("grow(past the total) problems = %v; want %s", c.problems, RuleTotalTooLarge)
	}
	c = newPackCheck(lim)
	_, _, max, idx, _ = c.admit("content/d.pak", typeFile, 0)
	if _, ok := c.grow("content/d.pak", idx, max, ratioFloor, ratioFloor, 1); !ok {
		t.Errorf("grow(1 MiB from 1 byte) stopped; the ratio applies only above 1 MiB")
	}
	if _, ok := c.grow("content/d.pak", idx, max, 201*10000, 1, 10000); ok || c.problems[0].Rule != RuleRatio {
		t.Errorf("grow(1:201) problems = %v; want %s", c.problems, RuleRatio)
	}
	c = newPackCheck(DefaultLimits())
	_, _, max, idx, _ = c.admit("README.md", typeFile, 0)
	if write, ok := c.grow("README.md", idx, max, maxDocBytes+1, maxDocBytes+1, -1); write || !ok {
		t.Errorf("grow(README over 4 MiB) = %v, %v; want stop writing, keep reading", write, ok)
	}
}
