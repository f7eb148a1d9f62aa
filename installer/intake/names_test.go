package intake

import (
	"bufio"
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
)

// fileRules returns the id of every file rule, sorted.
func fileRules() []string {
	return slices.Sorted(maps.Keys(ruleTexts))
}

func TestCheckName(t *testing.T) {
	lim := DefaultLimits()
	for _, tc := range []struct {
		name  string
		rules []string // nil: accepted
	}{
		{"forgepack.json", nil},
		{"content/foundry.utoc", nil},
		{"foundry-wide/content/maps/x.pak", nil},
		{"content/caf\u00e9.pak", nil},
		{"content/CONSOLE.pak", nil},
		{"content/COM10.pak", nil},
		{"content/.hidden.pak", nil},
		{"1/2/3/4/5/6/7/8", nil},
		{strings.Repeat("a", 200), nil},
		{"", []string{RuleEmptyName}},
		{"/abs", []string{RuleAbsolute}},
		{"//server/share", []string{RuleAbsolute, RuleEmptyComponent}},
		{"C:/x", []string{RuleDriveLetter}},
		{"c:x", []string{RuleDriveLetter}},
		{"../x", []string{RuleDotDot}},
		{"a/../../x", []string{RuleDotDot}},
		{"a/..", []string{RuleDotDot}},
		{`a\b`, []string{RuleBackslash}},
		{"a\x00b", []string{RuleControlChar}},
		{"a\nb", []string{RuleControlChar}},
		{"a\x7f", []string{RuleControlChar}},
		{"a\u0085", []string{RuleControlChar}},
		{"a\xffb", []string{RuleInvalidUTF8}},
		{"CON", []string{RuleReserved}},
		{"con.txt", []string{RuleReserved}},
		{"a/Aux.tar.gz", []string{RuleReserved}},
		{"a/nul/b", []string{RuleReserved}},
		{"COM1", []string{RuleReserved}},
		{"lpt9.pak", []string{RuleReserved}},
		{"com\u00b2", []string{RuleReserved}},
		{"PRN .txt", []string{RuleReserved}},
		{"conin$.pak", []string{RuleReserved}},
		{"con\u0131n$", []string{RuleReserved}}, // a dotless ı: Unicode's upper case is CONIN$
		{"console.pak", nil},
		{"comma/lpt10", nil},
		{"a.", []string{RuleTrailingDotSpace}},
		{"a ", []string{RuleTrailingDotSpace}},
		{"dir./x", []string{RuleTrailingDotSpace}},
		{"a:b", []string{RuleDriveLetter}},
		{"ab:c", []string{RuleWindowsChar}},
		{"C:/a:b", []string{RuleDriveLetter, RuleWindowsChar}},
		{"a|b", []string{RuleWindowsChar}},
		{"a*", []string{RuleWindowsChar}},
		{"a//b", []string{RuleEmptyComponent}},
		{"a/./b", []string{RuleDotComponent}},
		{strings.Repeat("a", 201), []string{RulePathTooLong}},
		{"1/2/3/4/5/6/7/8/9", []string{RuleTooDeep}},
		{"\x01/../CON.txt/x.", []string{RuleControlChar, RuleDotDot, RuleReserved, RuleTrailingDotSpace}},
		{"content/AVERYL~1.PAK", []string{RuleShortName}},
		{"content/averyl~1.pak", []string{RuleShortName}},
		{"content/A~1", []string{RuleShortName}},
		{"content/AB12CD~9.P", []string{RuleShortName}},
		{"content/ABCDE~12.PAK", []string{RuleShortName}},
		{"content/ABCDEF~12.PAK", nil}, // 9 characters before the dot
		{"MAPS~1/x.pak", []string{RuleShortName}},
		{"content/A~123456.pak", []string{RuleShortName}},
		{"content/A~1234567.pak", nil},    // 9 characters before the dot
		{"content/ABCDEFG~1.PAK", nil},    // 7 characters before ~: never a short name
		{"content/ABCD~1.PAKS", nil},      // 4-character extension
		{"content/ABCD~X.PAK", nil},       // no digit after ~
		{"content/ABCD~.PAK", nil},        // no digit after ~
		{"content/~1.PAK", nil},           // nothing before ~
		{"content/AB~1~2.PAK", nil},       // ~ twice: Windows never makes that
		{"content/map~1.tar.pak", nil},    // two dots: not 8.3
		{"content/ABCDEF~12345.PAK", nil}, // 12 characters before the dot
	} {
		var got []string
		for _, p := range CheckName(tc.name, lim) {
			if p.Entry != tc.name {
				t.Errorf("CheckName(%q) problem entry = %q; want the name", tc.name, p.Entry)
			}
			got = append(got, p.Rule)
		}
		slices.Sort(got)
		want := slices.Clone(tc.rules)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("CheckName(%q) = %q; want %q", tc.name, got, want)
		}
	}
}

func TestCheckNameLowerLimits(t *testing.T) {
	lim := DefaultLimits()
	lim.MaxPathBytes, lim.MaxDepth = 10, 2
	got := CheckName("content/a/b.pak", lim)
	if len(got) != 2 || got[0].Rule != RulePathTooLong || got[1].Rule != RuleTooDeep {
		t.Errorf("CheckName(lowered limits) = %v; want path too long and too deep", got)
	}
	if got[0].Value != "15 bytes, limit 10" {
		t.Errorf("value = %q; want %q", got[0].Value, "15 bytes, limit 10")
	}
}

func TestCleanName(t *testing.T) {
	for _, tc := range []struct {
		raw, name string
		dir       bool
	}{
		{"a/b", "a/b", false},
		{"a/b/", "a/b", true},
		{"./a", "a", false},
		{"./", "", false},
		{".", "", false},
		{"././a/", "a", true},
		{"/", "/", false},
	} {
		name, dir := cleanName(tc.raw)
		if name != tc.name || dir != tc.dir {
			t.Errorf("cleanName(%q) = %q, %v; want %q, %v", tc.raw, name, dir, tc.name, tc.dir)
		}
	}
}

func TestFoldKey(t *testing.T) {
	same := [][2]string{
		{"content/A.pak", "content/a.pak"},
		{"content/caf\u00e9.pak", "content/cafe\u0301.pak"},
		{"content/\u212a.pak", "content/k.pak"}, // KELVIN SIGN
		{"STRASSE", "stra\u00dfe"},
	}
	for _, p := range same {
		if foldKey(p[0]) != foldKey(p[1]) {
			t.Errorf("foldKey(%q) != foldKey(%q); want equal", p[0], p[1])
		}
	}
	if foldKey("a.pak") == foldKey("b.pak") {
		t.Errorf("foldKey(a.pak) == foldKey(b.pak)")
	}
}

// TestFoldKeyASCII: an ASCII name folds exactly as Unicode NFC and full
// case folding fold it, every byte of it, and a name in lower case costs
// no allocation (a pack of 3,000 files folds every folder on each name's
// way, in the child and again in the parent).
func TestFoldKeyASCII(t *testing.T) {
	unicodeFold := func(s string) string { return cases.Fold().String(norm.NFC.String(s)) }
	names := []string{"content/Maps/DEEP/a.PAK", "MJOLNIRForge", "forgepack.json"}
	for b := range utf8.RuneSelf {
		names = append(names, "content/x"+string(rune(b))+"Y.pak")
	}
	names = append(names, nameSeeds(t)...)
	for _, n := range names {
		if got, want := foldKey(n), unicodeFold(n); got != want {
			t.Errorf("foldKey(%q) = %q; want %q", n, got, want)
		}
	}
	if allocs := testing.AllocsPerRun(100, func() { foldKey("content/maps/deep/a.pak") }); allocs != 0 {
		t.Errorf("foldKey of a lower-case ASCII name allocates %v times; want none", allocs)
	}
}

// TestNameChecksAllocateNothing: the rules of a pack's name (CheckName,
// the OS-added look-up) run on every entry twice, in the child and again
// in the parent, and allocated five times for each: a name that breaks
// no rule now costs no allocation.
func TestNameChecksAllocateNothing(t *testing.T) {
	lim := DefaultLimits()
	name := "content/Maps/deep/f00001.sig"
	if allocs := testing.AllocsPerRun(100, func() { CheckName(name, lim) }); allocs != 0 {
		t.Errorf("CheckName(%q) allocates %v times; want none", name, allocs)
	}
	if allocs := testing.AllocsPerRun(100, func() { osAdded(name, false) }); allocs != 0 {
		t.Errorf("osAdded(%q) allocates %v times; want none", name, allocs)
	}
}

// nameSeeds reads testdata/entry-names.txt.
func nameSeeds(t testing.TB) []string {
	f, err := os.Open(filepath.Join("testdata", "entry-names.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		s, err := strconv.Unquote(line)
		if err != nil {
			t.Fatalf("testdata/entry-names.txt: %q: %v", line, err)
		}
		out = append(out, s)
	}
	return out
}

// FuzzCheckName checks that every name CheckName accepts is safe: local,
// clean, printable UTF-8 within the limits, with no component Windows
// treats specially.
func FuzzCheckName(f *testing.F) {
	for _, s := range nameSeeds(f) {
		f.Add(s)
	}
	lim := DefaultLimits()
	f.Fuzz(func(t *testing.T, name string) {
		ps := CheckName(name, lim)
		for _, p := range ps {
			if p.Entry != name || p.Rule == "" {
				t.Fatalf("CheckName(%q) gave malformed problem %#v", name, p)
			}
			_ = p.String()
		}
		_ = foldKey(name)
		if len(ps) > 0 {
			return
		}
		switch {
		case !utf8.ValidString(name), len(name) > lim.MaxPathBytes, len(name) == 0:
			t.Fatalf("CheckName(%q) accepted a name of bad encoding or length", name)
		case !filepath.IsLocal(filepath.FromSlash(name)), !path.IsAbs("/" + name):
			t.Fatalf("CheckName(%q) accepted a non-local name", name)
		case path.Clean(name) != name:
			t.Fatalf("CheckName(%q) accepted an unclean name (clean: %q)", name, path.Clean(name))
		case strings.ContainsAny(name, "\\:<>\"|?*"):
			t.Fatalf("CheckName(%q) accepted a Windows-special character", name)
		case strings.Count(name, "/")+1 > lim.MaxDepth:
			t.Fatalf("CheckName(%q) accepted a name too deep", name)
		}
		for _, r := range name {
			if r < 0x20 || (r >= 0x7f && r <= 0x9f) {
				t.Fatalf("CheckName(%q) accepted control character %U", name, r)
			}
		}
		for c := range strings.SplitSeq(name, "/") {
			if isReserved(c) || strings.HasSuffix(c, ".") || strings.HasSuffix(c, " ") {
				t.Fatalf("CheckName(%q) accepted component %q", name, c)
			}
		}
	})
}

func TestIgnoredDropName(t *testing.T) {
	for name, want := range map[string]bool{
		"pack.zip":                 false,
		"pack.7z":                  false,
		"tmp.zip":                  false,
		"pack.zip.part":            true,
		"pack.zip.PART":            true,
		"pack.zip.crdownload":      true,
		"pack.download":            true,
		"pack.tmp":                 true,
		"~pack.zip":                true,
		".pack.zip":                true,
		"dir/.hidden":              true,
		"dir.part/pack.zip":        false,
		"desktop.ini":              true,
		"Desktop.ini":              true,
		"Thumbs.db":                true,
		"pack.zip:Zone.Identifier": true,
		"pack.zip.opdownload":      true,
		"pack.zip.!qB":             true,
		"desktop.ini.zip":          false,
	} {
		if got := IgnoredDropName(name); got != want {
			t.Errorf("IgnoredDropName(%q) = %v; want %v", name, got, want)
		}
	}
}

// TestRuleTexts: every file rule constant of this package is in the table
// of words, each rule with words of its own, and a Problem reads in words,
// never by its id.
func TestRuleTexts(t *testing.T) {
	fset := token.NewFileSet()
	var consts []string
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range f.Decls {
			if gd, ok := decl.(*ast.GenDecl); ok && gd.Tok == token.CONST {
				for _, spec := range gd.Specs {
					vs := spec.(*ast.ValueSpec)
					for i, n := range vs.Names {
						if !strings.HasPrefix(n.Name, "Rule") || i >= len(vs.Values) {
							continue
						}
						if lit, ok := vs.Values[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
							id, _ := strconv.Unquote(lit.Value)
							consts = append(consts, id)
						}
					}
				}
			}
		}
	}
	slices.Sort(consts)
	if rules := fileRules(); !slices.Equal(rules, consts) {
		t.Fatalf("fileRules() = %q;\nthe Rule constants are %q", rules, consts)
	}
	texts := map[string]string{}
	for _, id := range consts {
		text := RuleText(id)
		if text == id || text == "" {
			t.Errorf("RuleText(%q) = %q; want the rule in words", id, text)
		}
		if other, ok := texts[text]; ok {
			t.Errorf("RuleText(%q) = RuleText(%q) = %q; want words of its own", id, other, text)
		}
		texts[text] = id
	}
	if got := RuleText("range"); got != "range" {
		t.Errorf("RuleText(%q) = %q; want an id that is no file rule's as it is", "range", got)
	}
	p := Problem{Entry: `a\b`, Rule: RuleBackslash, Value: "x"}
	if got, want := p.String(), `a\b: backslash in name (use / between folders) (x)`; got != want {
		t.Errorf("%#v.String() = %q; want %q", p, got, want)
	}
}
