package main

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"golang.org/x/tools/go/packages"
)

// exportGOOS are the systems the check loads the module for: those the
// project ships, builds and vets. A file that neither builds (a stub for
// other systems) is read as syntax only: its qualified names count as
// uses, and it declares no finding.
var exportGOOS = []string{"linux", "windows"}

// exportKept are the exported names the check allows although no other
// package uses them, by package (its path without the module's) and name,
// each with why it stays exported. It is empty: every exported name is
// used by another package.
var exportKept = map[string]string{}

// TestExportedNamesUsedOutside holds issue 36's rule "no exported name used
// only inside its package".
//
// The names it checks are the exported package-level funcs, types, vars
// and consts declared in the non-test, non-generated files (a name ending
// in .gen.go, or the "Code generated … DO NOT EDIT." line) of the module's
// packages, but for main packages and the test helpers (testHelpers in
// layers_test.go), built for linux and for windows (exportGOOS).
//
// Such a name counts as used when either
//   - another package of the module refers to it: its code or its tests
//     (internal or external), on linux or windows, or a file that neither
//     system builds. The package's own tests, its external _test package
//     included, are the package itself; or
//   - it is a type that the API of a used name shows, transitively: a
//     type in a used func's signature (type parameters included), a used
//     var's or const's type, a used type's underlying type (its exported
//     fields, the methods of an interface) and the signatures of its
//     exported methods. Another package holds values of that type and must
//     be able to name it.
//
// Methods and struct fields are not checked: an exported method may be
// there to satisfy an interface (error, fmt.Stringer, io.Reader, one of
// another package) and an exported field to be encoded (JSON, TOML) or
// read by reflection, which only a whole-program analysis could tell.
// Sentinel errors are names like any other: one that no other package
// matches with errors.Is is unexported.
//
// Two kinds of names stay exported on purpose. The rule ids (an exported
// string const named Rule…, see isRuleID) are a contract that tools match
// on, and the module's convention, held by TestRuleIDs in
// inventory/rejection and TestRuleTexts in installer/intake, is that one
// exported Rule… const owns each id; they are not checked. And exportKept
// lists single names, each with why; it is empty.
//
// A finding is fixed by using the name from another package, or by
// unexporting it: lowercase its first letter, or its leading initialism,
// in the package and its tests. The -unexport flag of this test does that
// for every finding (unexport_test.go): go test ./cmd/forgesync -run
// TestExportedNamesUsedOutside -unexport [-unexport.as=pkg.Name=newName].
// It leaves, and logs, a name whose new form is taken; an external test
// package keeps the old name through an alias in export_test.go.
func TestExportedNamesUsedOutside(t *testing.T) {
	ex, err := moduleExports()
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range ex.findings() {
		if *unexportFlag {
			continue
		}
		t.Errorf("%s:%d: %s.%s is exported but no other package uses it: use it from another package, or unexport it (%s) in its package and its tests; "+
			"go test ./cmd/forgesync -run TestExportedNamesUsedOutside -unexport does it (-unexport.as=%s.%s=otherName when that name is taken; its external tests keep the old name through export_test.go)",
			d.file, d.line, d.pkg, d.name, lowerName(d.name), d.pkg, d.name)
	}
	for key := range exportKept {
		if !ex.declared[key] {
			t.Errorf("exportKept lists %s, which is not an exported name of the module: remove the entry", key)
		} else if ex.used[key] {
			t.Errorf("exportKept lists %s, which another package uses: remove the entry", key)
		}
	}
	if *unexportFlag {
		unexportAll(t, ex)
	}
}

// exportDecl is an exported package-level name a package declares.
type exportDecl struct {
	pkg  string // its package, without the module's path
	name string
	file string // slash path from the module's root
	line int
}

// exportIndex is what the check gathers of the module: the exported
// names declared, those used, and the loaded packages the rename needs.
type exportIndex struct {
	root     string
	declared map[string]bool // pkg.name
	decls    []exportDecl
	used     map[string]bool // pkg.name
	loads    [][]*packages.Package
	stubs    []string // files that no system of exportGOOS builds
}

// findings returns the declared names that are neither used nor kept, in
// file order.
func (ex *exportIndex) findings() []exportDecl {
	var out []exportDecl
	seen := map[string]bool{}
	for _, d := range ex.decls {
		key := d.pkg + "." + d.name
		if ex.used[key] || exportKept[key] != "" || seen[key] {
			continue
		}
		seen[key] = true
		out = append(out, d)
	}
	slices.SortFunc(out, func(a, b exportDecl) int {
		return strings.Compare(fmt.Sprintf("%s:%08d", a.file, a.line), fmt.Sprintf("%s:%08d", b.file, b.line))
	})
	return out
}

// moduleExports loads the module once per test binary.
var moduleExports = sync.OnceValues(func() (*exportIndex, error) {
	ex := &exportIndex{declared: map[string]bool{}, used: map[string]bool{}}
	root, err := moduleRoot()
	if err != nil {
		return nil, err
	}
	ex.root = root
	loads := make([][]*packages.Package, len(exportGOOS))
	errs := make([]error, len(exportGOOS))
	var wg sync.WaitGroup
	for i, goos := range exportGOOS {
		wg.Go(func() { loads[i], errs[i] = loadTyped(root, goos) })
	}
	wg.Wait()
	built := map[string]bool{}
	for i, pkgs := range loads {
		if errs[i] != nil {
			return nil, errs[i]
		}
		for _, p := range pkgs {
			ex.index(p)
			for _, f := range p.CompiledGoFiles {
				built[f] = true
			}
		}
	}
	ex.loads = loads
	for _, pkgs := range loads {
		for _, p := range pkgs {
			for _, f := range p.IgnoredFiles {
				if strings.HasSuffix(f, ".go") && !built[f] && !slices.Contains(ex.stubs, f) {
					ex.stubs = append(ex.stubs, f)
				}
			}
		}
	}
	for _, f := range ex.stubs {
		if err := ex.stubUses(f); err != nil {
			return nil, err
		}
	}
	ex.closeOverAPI(loads)
	return ex, nil
})

// moduleRoot returns the module's folder.
func moduleRoot() (string, error) {
	pkgs, err := modulePackages()
	if err != nil {
		return "", err
	}
	for _, p := range pkgs {
		if p.ImportPath == modPath+"cmd/forgesync" {
			return filepath.Dir(filepath.Dir(p.Dir)), nil
		}
	}
	return "", fmt.Errorf("go list: no cmd/forgesync")
}

// loadTyped loads and type-checks every package of the module with its
// tests, built for goos.
func loadTyped(root, goos string) ([]*packages.Package, error) {
	cfg := &packages.Config{
		Mode: packages.NeedName | packages.NeedFiles | packages.NeedCompiledGoFiles | packages.NeedSyntax |
			packages.NeedTypes | packages.NeedTypesInfo,
		Tests: true,
		Dir:   root,
		Env:   append(os.Environ(), "GOOS="+goos, "GOARCH=amd64"),
	}
	pkgs, err := packages.Load(cfg, modPath+"...")
	if err != nil {
		return nil, fmt.Errorf("load for %s: %w", goos, err)
	}
	var msgs []string
	packages.Visit(pkgs, nil, func(p *packages.Package) {
		for _, e := range p.Errors {
			msgs = append(msgs, e.Error())
		}
	})
	if len(msgs) > 0 {
		return nil, fmt.Errorf("load for %s: %s", goos, strings.Join(msgs, "\n"))
	}
	return pkgs, nil
}

// relPkg returns the module package path without the module's, and
// whether path is a package of the module.
func relPkg(path string) (string, bool) {
	if path+"/" == modPath {
		return "", true
	}
	return strings.CutPrefix(path, modPath)
}

// inScope reports whether the exported names of the module package rel
// are checked: not a test helper, not generated.
func inScope(rel string) bool {
	return !testHelpers[rel] && rel != "cmd/launcher-client/forgesyncapi"
}

// ownerOf returns the module package that p, a loaded package or one of
// its test variants, belongs to: an external _test package is its
// package's own. It returns false for a test main.
func ownerOf(p *packages.Package) (string, bool) {
	if strings.HasSuffix(p.ID, ".test") {
		return "", false
	}
	rel, ok := relPkg(strings.TrimSuffix(p.PkgPath, "_test"))
	return rel, ok
}

// packageLevel returns the module package and name of obj when it is an
// exported package-level object of an in-scope package of the module.
func packageLevel(obj types.Object) (string, bool) {
	if obj == nil || obj.Pkg() == nil || !obj.Exported() {
		return "", false
	}
	if f, ok := obj.(*types.Func); ok {
		obj = f.Origin()
	}
	if obj.Pkg().Scope().Lookup(obj.Name()) != obj {
		return "", false
	}
	rel, ok := relPkg(obj.Pkg().Path())
	if !ok || !inScope(rel) {
		return "", false
	}
	return rel, true
}

// index records what p declares, when it is a package's own build (no
// test files), and what it uses of other packages.
func (ex *exportIndex) index(p *packages.Package) {
	owner, ok := ownerOf(p)
	if !ok {
		return
	}
	if p.Name != "main" && inScope(owner) && !strings.HasSuffix(p.PkgPath, "_test") {
		for _, name := range p.Types.Scope().Names() {
			ex.declare(p, owner, p.Types.Scope().Lookup(name))
		}
	}
	for _, obj := range p.TypesInfo.Uses {
		rel, ok := packageLevel(obj)
		if ok && rel != owner {
			ex.used[rel+"."+obj.Name()] = true
		}
	}
}

// declare records obj, declared by p, when it is a checked name.
func (ex *exportIndex) declare(p *packages.Package, owner string, obj types.Object) {
	if !obj.Exported() || isRuleID(obj) {
		return
	}
	pos := p.Fset.Position(obj.Pos())
	if strings.HasSuffix(pos.Filename, "_test.go") || strings.HasSuffix(pos.Filename, ".gen.go") {
		return
	}
	for _, f := range p.Syntax {
		if p.Fset.File(f.Pos()).Name() == pos.Filename && ast.IsGenerated(f) {
			return
		}
	}
	rel, err := filepath.Rel(ex.root, pos.Filename)
	if err != nil {
		rel = pos.Filename
	}
	ex.declared[owner+"."+obj.Name()] = true
	ex.decls = append(ex.decls, exportDecl{pkg: owner, name: obj.Name(), file: filepath.ToSlash(rel), line: pos.Line})
}

// ruleConstName is the name of a rule id's owner: Rule and a word.
var ruleConstName = regexp.MustCompile(`^Rule[A-Z0-9]`)

// isRuleID reports whether obj is a rule id, a string const named Rule…:
// the vocabulary of rejection.Reason.Rule, which tools match on
// (inventory/rejection/testdata/rule-ids.txt). Each id is owned by one
// exported Rule… const, which packages that cannot import the owner copy
// as a private rule… const (TestRuleIDs); so a rule id stays exported
// whether or not another package names it.
func isRuleID(obj types.Object) bool {
	c, ok := obj.(*types.Const)
	return ok && ruleConstName.MatchString(c.Name()) && c.Val().Kind() == constant.String
}

// stubUses records the qualified names of the module's packages that the
// file f, which no system of exportGOOS builds, refers to: x.Name where x
// is one of its imports and no local declaration hides it.
func (ex *exportIndex) stubUses(f string) error {
	file, err := parser.ParseFile(token.NewFileSet(), f, nil, 0)
	if err != nil {
		return err
	}
	owner, err := filepath.Rel(ex.root, filepath.Dir(f))
	if err != nil {
		return err
	}
	owner = filepath.ToSlash(owner)
	imports := map[string]string{}
	for _, imp := range file.Imports {
		path := strings.Trim(imp.Path.Value, `"`)
		rel, ok := relPkg(path)
		if !ok || rel == owner {
			continue
		}
		name := path[strings.LastIndex(path, "/")+1:]
		if imp.Name != nil {
			name = imp.Name.Name
		}
		imports[name] = rel
	}
	ast.Inspect(file, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		if x, ok := sel.X.(*ast.Ident); ok && x.Obj == nil && imports[x.Name] != "" && ast.IsExported(sel.Sel.Name) {
			ex.used[imports[x.Name]+"."+sel.Sel.Name] = true
		}
		return true
	})
	return nil
}

// closeOverAPI marks as used the types that the API of a used name shows,
// until nothing more is marked.
func (ex *exportIndex) closeOverAPI(loads [][]*packages.Package) {
	objs := map[string][]types.Object{}
	for _, pkgs := range loads {
		for _, p := range pkgs {
			owner, ok := ownerOf(p)
			if !ok || p.Name == "main" || strings.HasSuffix(p.PkgPath, "_test") || strings.HasSuffix(p.ID, "]") {
				continue
			}
			for _, name := range p.Types.Scope().Names() {
				obj := p.Types.Scope().Lookup(name)
				if obj.Exported() {
					objs[owner+"."+name] = append(objs[owner+"."+name], obj)
				}
			}
		}
	}
	var queue []string
	for key := range ex.used {
		queue = append(queue, key)
	}
	seen := map[types.Type]bool{}
	for len(queue) > 0 {
		key := queue[0]
		queue = queue[1:]
		for _, obj := range objs[key] {
			apiTypes(obj.Type(), seen, func(tn *types.TypeName) {
				rel, ok := packageLevel(tn)
				if ok && !ex.used[rel+"."+tn.Name()] {
					ex.used[rel+"."+tn.Name()] = true
					queue = append(queue, rel+"."+tn.Name())
				}
			})
		}
	}
}

// apiTypes calls mark with every named type that a holder of a value of
// type t sees: t itself, its elements, the exported fields of a struct,
// the methods of an interface, a signature's parameters and results, and
// the exported methods of a named type.
func apiTypes(t types.Type, seen map[types.Type]bool, mark func(*types.TypeName)) {
	if t == nil || seen[t] {
		return
	}
	seen[t] = true
	switch t := t.(type) {
	case *types.Alias:
		mark(t.Obj())
		apiTypes(types.Unalias(t), seen, mark)
	case *types.Named:
		mark(t.Origin().Obj())
		for i := range t.Origin().TypeParams().Len() {
			apiTypes(t.Origin().TypeParams().At(i).Constraint(), seen, mark)
		}
		for i := range t.TypeArgs().Len() {
			apiTypes(t.TypeArgs().At(i), seen, mark)
		}
		apiTypes(t.Underlying(), seen, mark)
		for i := range t.NumMethods() {
			if m := t.Method(i); m.Exported() {
				apiTypes(m.Type(), seen, mark)
			}
		}
	case *types.Pointer:
		apiTypes(t.Elem(), seen, mark)
	case *types.Slice:
		apiTypes(t.Elem(), seen, mark)
	case *types.Array:
		apiTypes(t.Elem(), seen, mark)
	case *types.Chan:
		apiTypes(t.Elem(), seen, mark)
	case *types.Map:
		apiTypes(t.Key(), seen, mark)
		apiTypes(t.Elem(), seen, mark)
	case *types.Struct:
		for i := range t.NumFields() {
			if f := t.Field(i); f.Exported() {
				apiTypes(f.Type(), seen, mark)
			}
		}
	case *types.Interface:
		for i := range t.NumMethods() {
			if m := t.Method(i); m.Exported() {
				apiTypes(m.Type(), seen, mark)
			}
		}
	case *types.Signature:
		for i := range t.TypeParams().Len() {
			apiTypes(t.TypeParams().At(i).Constraint(), seen, mark)
		}
		apiTypes(t.Params(), seen, mark)
		apiTypes(t.Results(), seen, mark)
	case *types.Tuple:
		for i := range t.Len() {
			apiTypes(t.At(i).Type(), seen, mark)
		}
	case *types.TypeParam:
		apiTypes(t.Constraint(), seen, mark)
	}
}
