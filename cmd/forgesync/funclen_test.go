package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"testing"
)

// maxFuncLines is DESIGN.md's rule: functions stay under 80 lines, counted
// from the func keyword to the closing brace.
const maxFuncLines = 80

// longFuncAllowed lists functions over maxFuncLines that may stay so for
// now, by package folder and name (Type.method for a method), with the
// length they may not exceed. An entry for a function that is no longer
// over maxFuncLines fails the test, so that the list only shrinks. It is
// empty: every function is under the line.
var longFuncAllowed = map[string]int{}

// TestFunctionLength holds DESIGN.md's "functions stay under 80 lines" for
// every function of the module's code, on every OS: generated files (a
// name ending in .gen.go, or the "Code generated … DO NOT EDIT." line) and
// tests are not counted. Tests are left out because the rule is for the
// code a newcomer reads to carry the program on; a test is most often a
// table of named cases or an end-to-end script read top to bottom, whose
// length is its list of cases.
func TestFunctionLength(t *testing.T) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}").Output()
	if err != nil {
		t.Fatalf("go list -m: %v", err)
	}
	root := strings.TrimSpace(string(out))
	long := map[string]bool{}
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != root && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") || strings.HasPrefix(d.Name(), "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") || strings.HasSuffix(p, ".gen.go") {
			return nil
		}
		for _, fn := range longFuncs(t, root, p) {
			if n, ok := longFuncAllowed[fn.key]; ok {
				long[fn.key] = true
				if fn.lines > n {
					t.Errorf("%s:%d: %s is %d lines, longer than the %d it is allowed for now: shorten it", fn.file, fn.line, fn.name, fn.lines, n)
				}
				continue
			}
			t.Errorf("%s:%d: %s is %d lines; functions stay under %d (DESIGN.md): split it along its seams", fn.file, fn.line, fn.name, fn.lines, maxFuncLines)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for key := range longFuncAllowed {
		if !long[key] {
			t.Errorf("longFuncAllowed lists %s, which is no longer over %d lines (or no longer there): remove the entry", key, maxFuncLines)
		}
	}
}

// longFunc is a function over maxFuncLines.
type longFunc struct {
	file  string // slash path from the module's root
	line  int    // of the func keyword
	name  string // Type.method for a method
	key   string // package folder:name
	lines int
}

// longFuncs parses the Go file p of the module at root and returns its
// functions over maxFuncLines; none for a generated file. A function
// literal outside every function declaration (a package variable's) counts
// as a function of its own, named after the variable.
func longFuncs(t *testing.T, root, p string) []longFunc {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, p, nil, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		t.Fatalf("parse %s: %v", p, err)
	}
	if ast.IsGenerated(f) {
		return nil
	}
	rel, err := filepath.Rel(root, p)
	if err != nil {
		t.Fatal(err)
	}
	rel = filepath.ToSlash(rel)
	var found []longFunc
	add := func(name string, node ast.Node) {
		start, end := fset.Position(node.Pos()).Line, fset.Position(node.End()).Line
		if n := end - start + 1; n > maxFuncLines {
			found = append(found, longFunc{file: rel, line: start, name: name, key: path.Dir(rel) + ":" + name, lines: n})
		}
	}
	for _, decl := range f.Decls {
		switch d := decl.(type) {
		case *ast.FuncDecl:
			if d.Body != nil {
				add(funcName(d), d)
			}
		case *ast.GenDecl:
			for _, spec := range d.Specs {
				vs, ok := spec.(*ast.ValueSpec)
				if !ok {
					continue
				}
				for i, v := range vs.Values {
					ast.Inspect(v, func(n ast.Node) bool {
						lit, ok := n.(*ast.FuncLit)
						if ok && i < len(vs.Names) {
							add(vs.Names[i].Name, lit)
						}
						return !ok
					})
				}
			}
		}
	}
	return found
}

// funcName is a function's name, or Type.method for a method.
func funcName(d *ast.FuncDecl) string {
	if d.Recv == nil || len(d.Recv.List) == 0 {
		return d.Name.Name
	}
	typ := d.Recv.List[0].Type
	if star, ok := typ.(*ast.StarExpr); ok {
		typ = star.X
	}
	switch x := typ.(type) { // a generic type's method
	case *ast.IndexExpr:
		typ = x.X
	case *ast.IndexListExpr:
		typ = x.X
	}
	if id, ok := typ.(*ast.Ident); ok {
		return id.Name + "." + d.Name.Name
	}
	return d.Name.Name
}

// maxCommandLines is DESIGN.md's bound on the forgesync command's own
// package: it parses flags, builds and calls; what grows beyond that
// belongs in cli (the machinery), view (the text), author (the authors'
// commands) or the domain.
const maxCommandLines = 1000

// TestCommandIsThin holds package main of cmd/forgesync under
// maxCommandLines lines of code, every line of its non-test files counted.
func TestCommandIsThin(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		total += strings.Count(string(b), "\n")
	}
	if total >= maxCommandLines {
		t.Errorf("cmd/forgesync holds %d lines outside its tests; it stays under %d (DESIGN.md): move what is not flags and wiring into cli, view, author or the package that does the work", total, maxCommandLines)
	}
}
