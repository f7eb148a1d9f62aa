package layers

import (
	"encoding/json"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

type pkg struct {
	ImportPath string
	Dir        string
	GoFiles    []string
	Imports    []string
	Deps       []string
}

func listPackages(t *testing.T) []pkg {
	t.Helper()
	out, err := exec.Command("go", "list", "-json", "github.com/mjolnir-forge/forgesync/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var pkgs []pkg
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for dec.More() {
		var p pkg
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
}

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

// TestLayers holds the lines of DESIGN.md: the catalog and the renderers
// know nothing of disks, sockets or the service; the installing layers
// rest on each other one way only (intake at the bottom; place on intake;
// store and deploy on neither) and know nothing of the pipeline, HTTP, the
// wire shapes (api: they store their own types) or the layers above them; daemon knows nothing of validation, files or the
// watcher: it serves what the pipeline hands it; the pack set packages know
// nothing of the pipeline, the service or the installing layers (they hand
// their callers lock values and verified archives), sets/lock knows nothing
// of HTTP, and sets/fetch and sets/export nothing of each other; rejection and errkind are leaves every
// layer may use; api (the wire shapes) rests on internal leaves alone
// (TestAPIKnowsNoDomain), so the pipeline, the daemon and the CLI can
// share its types; the watcher knows nothing of transactions
// and the pipeline nothing of HTTP, the service or the watcher.
func TestLayers(t *testing.T) {
	forbidden := map[string][]string{
		"inventory":           {"net", "net/http", "os", "github.com/fsnotify/fsnotify", "github.com/kardianos/service", "github.com/mjolnir-forge/forgesync/installer/intake", "github.com/mjolnir-forge/forgesync/installer/store", "github.com/mjolnir-forge/forgesync/installer/place", "github.com/mjolnir-forge/forgesync/installer/deploy"},
		"inventory/render":    {"net", "net/http", "os", "github.com/fsnotify/fsnotify", "github.com/kardianos/service", "github.com/mjolnir-forge/forgesync/installer/intake", "github.com/mjolnir-forge/forgesync/installer/store", "github.com/mjolnir-forge/forgesync/installer/place", "github.com/mjolnir-forge/forgesync/installer/deploy", "github.com/mjolnir-forge/forgesync/inventory/publish"},
		"inventory/publish":   {"net/http", "github.com/fsnotify/fsnotify", "github.com/mjolnir-forge/forgesync/inventory", "github.com/mjolnir-forge/forgesync/inventory/render"},
		"installer/iostore":   {"net/http", "github.com/mjolnir-forge/forgesync/inventory"},
		"installer/intake":    {"github.com/mjolnir-forge/forgesync/api", "net/http", "github.com/fsnotify/fsnotify", "github.com/mjolnir-forge/forgesync/pipeline", "github.com/mjolnir-forge/forgesync/daemon", "github.com/mjolnir-forge/forgesync/inventory", "github.com/mjolnir-forge/forgesync/config", "github.com/mjolnir-forge/forgesync/installer/verdict", "github.com/mjolnir-forge/forgesync/sets/follow", "github.com/mjolnir-forge/forgesync/daemon", "github.com/mjolnir-forge/forgesync/installer/store", "github.com/mjolnir-forge/forgesync/installer/place", "github.com/mjolnir-forge/forgesync/installer/deploy", "github.com/mjolnir-forge/forgesync/installer/iostore"},
		"installer/store":     {"github.com/mjolnir-forge/forgesync/api", "net/http", "github.com/fsnotify/fsnotify", "github.com/mjolnir-forge/forgesync/pipeline", "github.com/mjolnir-forge/forgesync/daemon", "github.com/mjolnir-forge/forgesync/inventory", "github.com/mjolnir-forge/forgesync/config", "github.com/mjolnir-forge/forgesync/installer/verdict", "github.com/mjolnir-forge/forgesync/sets/follow", "github.com/mjolnir-forge/forgesync/daemon", "github.com/mjolnir-forge/forgesync/installer/intake", "github.com/mjolnir-forge/forgesync/installer/place", "github.com/mjolnir-forge/forgesync/installer/deploy"},
		"installer/place":     {"github.com/mjolnir-forge/forgesync/api", "net/http", "github.com/fsnotify/fsnotify", "github.com/mjolnir-forge/forgesync/pipeline", "github.com/mjolnir-forge/forgesync/daemon", "github.com/mjolnir-forge/forgesync/inventory", "github.com/mjolnir-forge/forgesync/config", "github.com/mjolnir-forge/forgesync/installer/verdict", "github.com/mjolnir-forge/forgesync/sets/follow", "github.com/mjolnir-forge/forgesync/daemon", "github.com/mjolnir-forge/forgesync/installer/store", "github.com/mjolnir-forge/forgesync/installer/deploy"},
		"installer/deploy":    {"github.com/mjolnir-forge/forgesync/api", "net/http", "github.com/fsnotify/fsnotify", "github.com/mjolnir-forge/forgesync/pipeline", "github.com/mjolnir-forge/forgesync/daemon", "github.com/mjolnir-forge/forgesync/inventory", "github.com/mjolnir-forge/forgesync/config", "github.com/mjolnir-forge/forgesync/installer/verdict", "github.com/mjolnir-forge/forgesync/sets/follow", "github.com/mjolnir-forge/forgesync/daemon", "github.com/mjolnir-forge/forgesync/installer/intake", "github.com/mjolnir-forge/forgesync/installer/store", "github.com/mjolnir-forge/forgesync/installer/place"},
		"config":              {"net/http", "github.com/mjolnir-forge/forgesync/pipeline"},
		"sets/lock":           {"github.com/mjolnir-forge/forgesync/api", "github.com/fsnotify/fsnotify", "github.com/kardianos/service", "github.com/mjolnir-forge/forgesync/pipeline", "github.com/mjolnir-forge/forgesync/daemon", "github.com/mjolnir-forge/forgesync/installer/intake", "github.com/mjolnir-forge/forgesync/installer/store", "github.com/mjolnir-forge/forgesync/installer/place", "github.com/mjolnir-forge/forgesync/installer/deploy", "github.com/mjolnir-forge/forgesync/config", "net", "net/http", "github.com/mjolnir-forge/forgesync/sets/oci", "github.com/mjolnir-forge/forgesync/sets/fetch", "github.com/mjolnir-forge/forgesync/sets/export"},
		"sets/fetch":          {"github.com/mjolnir-forge/forgesync/api", "github.com/fsnotify/fsnotify", "github.com/kardianos/service", "github.com/mjolnir-forge/forgesync/pipeline", "github.com/mjolnir-forge/forgesync/daemon", "github.com/mjolnir-forge/forgesync/installer/intake", "github.com/mjolnir-forge/forgesync/installer/store", "github.com/mjolnir-forge/forgesync/installer/place", "github.com/mjolnir-forge/forgesync/installer/deploy", "github.com/mjolnir-forge/forgesync/config", "github.com/mjolnir-forge/forgesync/sets/export"},
		"sets/export":         {"github.com/mjolnir-forge/forgesync/api", "github.com/fsnotify/fsnotify", "github.com/kardianos/service", "github.com/mjolnir-forge/forgesync/pipeline", "github.com/mjolnir-forge/forgesync/daemon", "github.com/mjolnir-forge/forgesync/installer/intake", "github.com/mjolnir-forge/forgesync/installer/store", "github.com/mjolnir-forge/forgesync/installer/place", "github.com/mjolnir-forge/forgesync/installer/deploy", "github.com/mjolnir-forge/forgesync/config", "github.com/mjolnir-forge/forgesync/sets/fetch"},
		"native":              {"github.com/mjolnir-forge/forgesync/api", "net/http", "github.com/mjolnir-forge/forgesync/pipeline", "github.com/mjolnir-forge/forgesync/daemon"},
		"inventory/rejection": {"os", "net", "net/http", "github.com/mjolnir-forge/forgesync/inventory", "github.com/mjolnir-forge/forgesync/installer/intake", "github.com/mjolnir-forge/forgesync/installer/store", "github.com/mjolnir-forge/forgesync/installer/place", "github.com/mjolnir-forge/forgesync/installer/deploy", "github.com/mjolnir-forge/forgesync/installer/verdict", "github.com/mjolnir-forge/forgesync/pipeline", "github.com/mjolnir-forge/forgesync/daemon"},
		"api":                 {"os", "net", "net/http", "github.com/mjolnir-forge/forgesync/inventory", "github.com/mjolnir-forge/forgesync/installer/intake", "github.com/mjolnir-forge/forgesync/installer/store", "github.com/mjolnir-forge/forgesync/installer/place", "github.com/mjolnir-forge/forgesync/installer/deploy", "github.com/mjolnir-forge/forgesync/native", "github.com/mjolnir-forge/forgesync/pipeline", "github.com/mjolnir-forge/forgesync/daemon"},
		"watch":               {"net/http", "github.com/mjolnir-forge/forgesync/pipeline", "github.com/mjolnir-forge/forgesync/installer/intake", "github.com/mjolnir-forge/forgesync/installer/store", "github.com/mjolnir-forge/forgesync/installer/place", "github.com/mjolnir-forge/forgesync/installer/deploy", "github.com/mjolnir-forge/forgesync/inventory", "github.com/mjolnir-forge/forgesync/daemon"},
		"pipeline":            {"net/http", "github.com/fsnotify/fsnotify", "github.com/kardianos/service", "github.com/mjolnir-forge/forgesync/daemon", "github.com/mjolnir-forge/forgesync/watch"},
		"sets/follow":         {"github.com/fsnotify/fsnotify", "github.com/kardianos/service", "github.com/mjolnir-forge/forgesync/daemon"},
		"internal/cli":        {"github.com/mjolnir-forge/forgesync/pipeline", "github.com/mjolnir-forge/forgesync/daemon", "github.com/mjolnir-forge/forgesync/daemon", "github.com/mjolnir-forge/forgesync/sets/follow", "github.com/mjolnir-forge/forgesync/sets/lock", "github.com/mjolnir-forge/forgesync/sets/fetch", "github.com/mjolnir-forge/forgesync/sets/export"},
		"internal/errkind":    {"os", "net/http", "github.com/mjolnir-forge/forgesync/api", "github.com/mjolnir-forge/forgesync/inventory/rejection", "github.com/mjolnir-forge/forgesync/installer/intake", "github.com/mjolnir-forge/forgesync/installer/store", "github.com/mjolnir-forge/forgesync/installer/place", "github.com/mjolnir-forge/forgesync/installer/deploy", "github.com/mjolnir-forge/forgesync/pipeline", "github.com/mjolnir-forge/forgesync/daemon", "github.com/mjolnir-forge/forgesync/sets/follow", "github.com/mjolnir-forge/forgesync/daemon"},
		"sets/casync":         {"net", "net/http", "github.com/mjolnir-forge/forgesync/api", "github.com/mjolnir-forge/forgesync/sets/lock", "github.com/mjolnir-forge/forgesync/sets/fetch", "github.com/mjolnir-forge/forgesync/sets/export", "github.com/mjolnir-forge/forgesync/sets/follow", "github.com/mjolnir-forge/forgesync/pipeline", "github.com/mjolnir-forge/forgesync/installer/intake", "github.com/mjolnir-forge/forgesync/daemon", "github.com/mjolnir-forge/forgesync/daemon", "github.com/mjolnir-forge/forgesync/config"},
	}
	for _, p := range listPackages(t) {
		rel := strings.TrimPrefix(p.ImportPath, "github.com/mjolnir-forge/forgesync/")
		bad, ok := forbidden[rel]
		if !ok {
			continue
		}
		// Project packages are checked transitively, others as direct
		// imports (a library may use net/http for features we never call).
		deps := p.Imports
		for _, d := range p.Deps {
			if strings.HasPrefix(d, "github.com/mjolnir-forge/forgesync/") {
				deps = append(deps, d)
			}
		}
		for _, b := range bad {
			for _, d := range deps {
				if d == b {
					t.Errorf("%s depends on %s, which DESIGN.md keeps out of it", rel, b)
				}
			}
		}
	}
}

// TestBinaryLeavesGeneratedClientOut: the generated launcher client and its
// runtime are for launchers and the tests; the forgesync binary speaks the
// API through api and daemon and never links them.
func TestBinaryLeavesGeneratedClientOut(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "github.com/mjolnir-forge/forgesync/cmd/forgesync").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	for _, d := range strings.Fields(string(out)) {
		if strings.HasPrefix(d, "github.com/oapi-codegen/") || strings.HasPrefix(d, "github.com/mjolnir-forge/forgesync/cmd/launcher-client") {
			t.Errorf("cmd/forgesync depends on %s: the generated client is no part of the binary", d)
		}
	}
}

// TestBinaryLeavesPackagingOut: the release packaging (cmd/mkrelease and
// nfpm, which builds the .deb) is for `make release`; the forgesync binary
// never links it.
func TestBinaryLeavesPackagingOut(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "github.com/mjolnir-forge/forgesync/cmd/forgesync").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	for _, d := range strings.Fields(string(out)) {
		if strings.HasPrefix(d, "github.com/goreleaser/") || strings.HasPrefix(d, "github.com/mjolnir-forge/forgesync/cmd/mkrelease") {
			t.Errorf("cmd/forgesync depends on %s: the release packaging is no part of the binary", d)
		}
	}
}

// TestBinaryLeavesTestRegistryOut: the registry the tests run
// (distribution, with its redis, prometheus and OpenTelemetry) and the
// harness around it are for tests; the forgesync binary never links them.
func TestBinaryLeavesTestRegistryOut(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "github.com/mjolnir-forge/forgesync/cmd/forgesync").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	for _, d := range strings.Fields(string(out)) {
		if strings.HasPrefix(d, "github.com/distribution/distribution/") || strings.HasPrefix(d, "github.com/mjolnir-forge/forgesync/internal/registrytest") {
			t.Errorf("cmd/forgesync depends on %s: the test registry is no part of the binary", d)
		}
	}
}

// TestConfigKnowsNoDomain: config holds plain values; whoever builds the
// domain's parts (machine, cmd) turns them into the domain's types. Of
// this module it may use only internal/ leaves, nothing of the domain.
func TestConfigKnowsNoDomain(t *testing.T) {
	const mod = "github.com/mjolnir-forge/forgesync/"
	out, err := exec.Command("go", "list", "-deps", mod+"config").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	for _, d := range strings.Fields(string(out)) {
		if strings.HasPrefix(d, mod) && d != mod+"config" && !strings.HasPrefix(d, mod+"internal/") {
			t.Errorf("config depends on %s: it holds plain values and knows nothing of the domain", d)
		}
	}
}

// TestAPIKnowsNoDomain: api holds the wire shapes alone; the domain's
// types are converted to them at the edges. Of this module it may use
// only internal/ leaves, nothing of the domain, so a domain type can never
// become a wire shape by import.
func TestAPIKnowsNoDomain(t *testing.T) {
	const mod = "github.com/mjolnir-forge/forgesync/"
	out, err := exec.Command("go", "list", "-deps", mod+"api").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	for _, d := range strings.Fields(string(out)) {
		if strings.HasPrefix(d, mod) && d != mod+"api" && !strings.HasPrefix(d, mod+"internal/") {
			t.Errorf("api depends on %s: it holds the wire shapes and knows nothing of the domain", d)
		}
	}
}
