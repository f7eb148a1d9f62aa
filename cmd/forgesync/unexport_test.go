package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"

	"golang.org/x/tools/go/packages"
)

// unexportFlag makes TestExportedNamesUsedOutside rename its findings
// instead of failing: go test ./cmd/forgesync -run
// TestExportedNamesUsedOutside -unexport.
var unexportFlag = flag.Bool("unexport", false, "rename every exported name that only its package uses to its unexported form, in its package and its tests")

// unexportAs names the unexported form of some findings where lowerName's
// would clash: -unexport.as=pkg.Name=newName,….
var unexportAs = flag.String("unexport.as", "", "with -unexport, the new names of some findings: pkg.Name=newName, comma-separated")

// lowerName returns the unexported form of name: its first letter in
// lower case, or its leading initialism (HTTPClient: httpClient, ID: id).
func lowerName(name string) string {
	r := []rune(name)
	n := 0
	for n < len(r) && unicode.IsUpper(r[n]) {
		n++
	}
	if n > 1 && n < len(r) && unicode.IsLower(r[n]) {
		n-- // the last capital starts the next word
	}
	for i := range n {
		r[i] = unicode.ToLower(r[i])
	}
	return string(r)
}

// renameEdit replaces the identifier at an offset of a file.
type renameEdit struct {
	off      int
	old, new string
	key      string // pkg.Name
	def      bool   // the declaration, whose doc comment is renamed too
}

// unexportAll renames every finding of ex to its unexported form where
// the rename is safe: everywhere its package and its tests name it, and
// the first word of its doc comment. It leaves and reports a name whose
// new form is a keyword or would be hidden by, or hide, another name, and
// one that the package's external tests use.
func unexportAll(t *testing.T, ex *exportIndex) {
	want := map[string]string{}
	for _, d := range ex.findings() {
		want[d.pkg+"."+d.name] = lowerName(d.name)
	}
	for as := range strings.SplitSeq(*unexportAs, ",") {
		if key, name, ok := strings.Cut(as, "="); ok && want[key] != "" {
			want[key] = name
		}
	}
	edits := map[string]map[int]renameEdit{}
	blocked := map[string]string{}
	xtest := map[string]types.Object{}
	for _, pkgs := range ex.loads {
		for _, p := range pkgs {
			renameIn(p, want, edits, blocked, xtest)
		}
	}
	for _, key := range slices.Sorted(func(yield func(string) bool) {
		for k := range blocked {
			if !yield(k) {
				return
			}
		}
	}) {
		t.Logf("left %s: %s", key, blocked[key])
	}
	for file, es := range edits {
		var list []renameEdit
		for _, e := range es {
			if blocked[e.key] == "" {
				list = append(list, e)
			}
		}
		if err := applyEdits(file, list); err != nil {
			t.Fatal(err)
		}
	}
	if err := writeTestAliases(ex, want, blocked, xtest); err != nil {
		t.Fatal(err)
	}
	for _, f := range ex.stubs {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for key := range want {
			name := key[strings.LastIndex(key, ".")+1:]
			if regexp.MustCompile(`\b` + name + `\b`).Match(src) {
				t.Logf("%s, built on neither of %v, names %s: check it by hand", f, exportGOOS, key)
			}
		}
	}
}

// renameIn adds to edits the identifiers of p that name a key of want,
// and to blocked the keys that cannot be renamed safely, with why.
func renameIn(p *packages.Package, want map[string]string, edits map[string]map[int]renameEdit, blocked map[string]string, xtest map[string]types.Object) {
	if strings.HasSuffix(p.ID, ".test") {
		return
	}
	checked := map[string]bool{}
	add := func(id *ast.Ident, obj types.Object, def bool) {
		if v, ok := obj.(*types.Var); ok && v.Anonymous() {
			// An embedded field is named after its type.
			obj = embeddedType(v.Type())
			def = false
		}
		rel, ok := packageLevel(obj)
		if !ok {
			return
		}
		key := rel + "." + obj.Name()
		newName, ok := want[key]
		if !ok {
			return
		}
		at := p.Fset.Position(id.Pos())
		if token.IsKeyword(newName) {
			blocked[key] = newName + " is a keyword"
		}
		if strings.HasSuffix(p.PkgPath, "_test") {
			// The external tests keep the exported name: an alias in
			// export_test.go.
			xtest[key] = obj
			return
		}
		if s := p.Types.Scope().Innermost(id.Pos()); s != nil {
			if _, o := s.LookupParent(newName, id.Pos()); o != nil {
				blocked[key] = fmt.Sprintf("%s is already a name at %s", newName, at)
			}
		}
		if !checked[key] && obj.Pkg() == p.Types {
			checked[key] = true
			if p.Types.Scope().Lookup(newName) != nil {
				blocked[key] = fmt.Sprintf("%s is already a name of the package", newName)
			}
			for _, f := range p.Syntax {
				if s := p.TypesInfo.Scopes[f]; s != nil && s.Lookup(newName) != nil {
					blocked[key] = fmt.Sprintf("%s is an import of %s", newName, p.Fset.Position(f.Pos()).Filename)
				}
			}
		}
		if edits[at.Filename] == nil {
			edits[at.Filename] = map[int]renameEdit{}
		}
		edits[at.Filename][at.Offset] = renameEdit{off: at.Offset, old: id.Name, new: newName, key: key, def: def}
	}
	for id, obj := range p.TypesInfo.Defs {
		add(id, obj, true)
	}
	for id, obj := range p.TypesInfo.Uses {
		add(id, obj, false)
	}
}

// docStart matches the first line of a comment block: its marker and its
// first word.
var docStart = regexp.MustCompile(`^(\s*//\s*)(\w+)`)

// applyEdits renames the identifiers of file at the edits' offsets, and
// the first word of a comment block just above a declaration it renames
// when that word is the old name.
func applyEdits(file string, edits []renameEdit) error {
	if len(edits) == 0 {
		return nil
	}
	src, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	slices.SortFunc(edits, func(a, b renameEdit) int { return b.off - a.off })
	for _, e := range edits {
		if string(src[e.off:e.off+len(e.old)]) != e.old {
			return fmt.Errorf("%s:%d: want %s", file, e.off, e.old)
		}
		src = slices.Concat(src[:e.off], []byte(e.new), src[e.off+len(e.old):])
		if e.def {
			src = renameDoc(src, e)
		}
	}
	return os.WriteFile(file, src, 0o644)
}

// renameDoc renames the first word of the comment block that ends on the
// line above e's line, when it is e's old name.
func renameDoc(src []byte, e renameEdit) []byte {
	lineStart := bytes.LastIndexByte(src[:e.off], '\n') + 1
	end := lineStart
	start := -1
	for end > 0 {
		prev := bytes.LastIndexByte(src[:end-1], '\n') + 1
		if !bytes.HasPrefix(bytes.TrimSpace(src[prev:end]), []byte("//")) {
			break
		}
		start = prev
		end = prev
	}
	if start < 0 {
		return src
	}
	m := docStart.FindSubmatchIndex(src[start:])
	if m == nil || string(src[start+m[4]:start+m[5]]) != e.old {
		return src
	}
	return slices.Concat(src[:start+m[4]], []byte(e.new), src[start+m[5]:])
}

// embeddedType returns the type name of an embedded field of type t.
func embeddedType(t types.Type) types.Object {
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	switch t := t.(type) {
	case *types.Named:
		return t.Origin().Obj()
	case *types.Alias:
		return t.Obj()
	}
	return nil
}

// writeTestAliases appends to the export_test.go of each package whose
// external tests use a renamed name an alias under the old name, so that
// those tests stay as they are (the standard library's idiom).
func writeTestAliases(ex *exportIndex, want, blocked map[string]string, xtest map[string]types.Object) error {
	dirs := map[string]string{}
	for _, d := range ex.decls {
		dirs[d.pkg+"."+d.name] = filepath.Join(ex.root, filepath.Dir(d.file))
	}
	for _, key := range slices.Sorted(maps.Keys(xtest)) {
		if blocked[key] != "" {
			continue
		}
		obj := xtest[key]
		kind := "var"
		switch obj.(type) {
		case *types.Const:
			kind = "const"
		case *types.TypeName:
			kind = "type"
		}
		file := filepath.Join(dirs[key], "export_test.go")
		src, err := os.ReadFile(file)
		if errors.Is(err, fs.ErrNotExist) {
			src, err = []byte("package "+obj.Pkg().Name()+"\n"), nil
		}
		if err != nil {
			return err
		}
		src = fmt.Appendf(src, "\n// %s is %s, for the external tests.\n%s %s = %s\n", obj.Name(), want[key], kind, obj.Name(), want[key])
		if err := os.WriteFile(file, src, 0o644); err != nil {
			return err
		}
	}
	return nil
}
