package rejection

import (
	"flag"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/rule-ids.txt with the rule ids found")

// slug is the form of every rule id: lowercase words of letters and
// digits joined by single hyphens, like "unknown-key".
var slug = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

// ruleConst is a rule id constant found in the module's source.
type ruleConst struct{ name, pos string }

// ruleIDs returns every constant of the module named Rule… (or rule…, a
// package's private copy) with a string value, by value: the vocabulary
// of Reason.Rule, wherever a package declares its part of it.
func ruleIDs(t *testing.T) map[string][]ruleConst {
	t.Helper()
	name := regexp.MustCompile(`^[Rr]ule[A-Z0-9]`)
	fset := token.NewFileSet()
	ids := map[string][]ruleConst{}
	err := filepath.WalkDir("../..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if base := d.Name(); path != "../.." && (strings.HasPrefix(base, ".") || base == "testdata" || base == "examples") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			gd, ok := decl.(*ast.GenDecl)
			if !ok || gd.Tok != token.CONST {
				continue
			}
			for _, spec := range gd.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, n := range vs.Names {
					if !name.MatchString(n.Name) || i >= len(vs.Values) {
						continue
					}
					lit, ok := vs.Values[i].(*ast.BasicLit)
					if !ok || lit.Kind != token.STRING {
						continue
					}
					v, err := strconv.Unquote(lit.Value)
					if err != nil {
						t.Fatalf("%s: %v", fset.Position(lit.Pos()), err)
					}
					ids[v] = append(ids[v], ruleConst{n.Name, fset.Position(n.Pos()).String()})
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return ids
}

// TestRuleIDs: every rule a Reason can name, the installer's file rules,
// the manifest and install rules, the scanner's and the pipeline's, is a
// slug, and no two rules share one. A package that cannot import the
// rule's owner may keep a private copy under the same name (rejection's
// copies of the install rules, for its hints).
func TestRuleIDs(t *testing.T) {
	ids := ruleIDs(t)
	for _, want := range []string{"backslash", "not-allowed-in-a-pack", "unknown-key", "range", "door-limit", "missing-package", "held"} {
		if _, ok := ids[want]; !ok {
			t.Errorf("rule %q not found; the search for rule constants missed a package", want)
		}
	}
	for id, consts := range ids {
		if !slug.MatchString(id) {
			t.Errorf("%s: rule %s = %q is not a slug (lowercase words joined by '-')", consts[0].pos, consts[0].name, id)
		}
		for _, c := range consts[1:] {
			if !strings.EqualFold(c.name, consts[0].name) {
				t.Errorf("rule id %q is both %s (%s) and %s (%s); every rule needs its own", id, consts[0].name, consts[0].pos, c.name, c.pos)
			}
		}
		// A private copy has its owner's value: the owner's constant of
		// the same name, exported, is among those of the same id.
		for _, c := range consts {
			if c.name[0] == 'r' && !slices.ContainsFunc(consts, func(o ruleConst) bool { return o.name == "R"+c.name[1:] }) {
				t.Errorf("%s: %s = %q copies no exported rule R%s of that value", c.pos, c.name, id, c.name[1:])
			}
		}
	}
}

// TestRuleIDsStable: the rule ids are those of testdata/rule-ids.txt, one
// a line: tools match on them, so changing or dropping one is a decision
// taken with -update, never a side effect.
func TestRuleIDsStable(t *testing.T) {
	const golden = "testdata/rule-ids.txt"
	got := strings.Join(slices.Sorted(maps.Keys(ruleIDs(t))), "\n") + "\n"
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("rule ids =\n%s\nwant (%s; rerun with -update if the change is meant)\n%s", got, golden, want)
	}
}
