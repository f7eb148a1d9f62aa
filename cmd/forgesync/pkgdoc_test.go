package main

import (
	"go/parser"
	"go/token"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestOnePackageComment checks that every package says what it owns, once.
func TestOnePackageComment(t *testing.T) {
	for _, p := range listPackages(t) {
		n := 0
		for _, f := range p.GoFiles {
			file, err := parser.ParseFile(token.NewFileSet(), filepath.Join(p.Dir, f), nil, parser.PackageClauseOnly|parser.ParseComments)
			if err != nil {
				t.Fatal(err)
			}
			if file.Doc != nil {
				n++
			}
		}
		if n != 1 {
			t.Errorf("%s has %d package comments; want exactly 1", p.ImportPath, n)
		}
	}
}

// mapSection is the heading of the README's map of the code.
const mapSection = "## The code"

// mapLine is a line of the map: "- `path`: what the package owns".
var mapLine = regexp.MustCompile("(?m)^- `([^`]+)`")

// TestPackageMap keeps the README's map of the code, one line per package
// under "## The code", equal to go list ./...: no package missing, none
// listed that is gone, none listed twice.
func TestPackageMap(t *testing.T) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}").Output()
	if err != nil {
		t.Fatalf("go list -m: %v", err)
	}
	readme, err := os.ReadFile(filepath.Join(strings.TrimSpace(string(out)), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(readme), "\n"+mapSection+"\n")
	if !ok {
		t.Fatalf("README.md has no %q section: the map of the code, one line per package", mapSection)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	listed := map[string]bool{}
	for _, m := range mapLine.FindAllStringSubmatch(section, -1) {
		if listed[m[1]] {
			t.Errorf("README.md's package map lists %s twice", m[1])
		}
		listed[m[1]] = true
	}
	for _, p := range listPackages(t) {
		rel := strings.TrimPrefix(p.ImportPath, modPath)
		if !listed[rel] {
			t.Errorf("README.md's package map has no line for %s: add \"- `%s`: what it owns\" under %q", rel, rel, mapSection)
		}
		delete(listed, rel)
	}
	for _, rel := range slices.Sorted(maps.Keys(listed)) {
		t.Errorf("README.md's package map lists %s, which go list ./... does not know: remove its line or correct its path", rel)
	}
}
