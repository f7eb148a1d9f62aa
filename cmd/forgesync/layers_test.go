package main

// The architecture checks of DESIGN.md live in this package's tests,
// beside the binary that assembles every layer (as Tailscale keeps
// cmd/tailscaled/deps_test.go): this file holds the layers as an
// allow-list and what the binary may link; pkgdoc_test.go, that every
// package says what it owns and that the README's package map lists every
// package; funclen_test.go, that no function is over 80 lines;
// exports_test.go, that no exported name is used only inside its package
// (unexport_test.go renames the findings).

import (
	"encoding/json"
	"errors"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
)

// modPath is the module's import path with its slash; the tables below
// name the module's packages relative to it.
const modPath = "github.com/mjolnir-forge/forgesync/"

// goPackage is what the checks read of one package from go list.
type goPackage struct {
	ImportPath string
	Dir        string
	GoFiles    []string
	Imports    []string
	Deps       []string
}

// modulePackages runs go list once per test binary.
var modulePackages = sync.OnceValues(func() ([]goPackage, error) {
	out, err := exec.Command("go", "list", "-json", modPath+"...").Output()
	if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
		return nil, errors.New(string(ee.Stderr))
	}
	if err != nil {
		return nil, err
	}
	var pkgs []goPackage
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for dec.More() {
		var p goPackage
		if err := dec.Decode(&p); err != nil {
			return nil, err
		}
		pkgs = append(pkgs, p)
	}
	return pkgs, nil
})

// listPackages returns every package of the module.
func listPackages(t *testing.T) []goPackage {
	t.Helper()
	pkgs, err := modulePackages()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	return pkgs
}

// layer is one line of the allow-list: what its packages own (the
// messages say it), the packages of the module they may import, and the
// packages outside the module (standard library or not) they must know
// nothing of.
type layer struct {
	owns  string
	may   []string
	never []string
}

// layers is DESIGN.md's house as an allow-list. A key is a package of
// the module (its path without the module's), or dir/... for dir and every
// package under it that no key names exactly; a package takes the layer of
// its exact key, else of the longest dir/... that holds it. Entries of may
// have the same forms, but a dir/... there never covers a test helper:
// those are named one by one. A package in no layer fails the test: place
// it here, with what it may import.
//
// The arrows: cmd → daemon → pipeline → installer/…, inventory/…, and
// sets/lock; sets/follow applies a set through the pipeline; api (the wire
// shapes) only from daemon and cmd; inventory knows nothing of disks (only
// inventory/publish writes), the installing layers nothing of HTTP, sets,
// the pipeline or each other but intake (place and verdict rest on it);
// sets/fetch and sets/export nothing of each other; config and internal/*
// nothing of the domain.
var layers = map[string]layer{
	// The commands: the binary's wiring, and the tools beside it.
	"cmd/forgesync/...": {owns: "the forgesync command: flags, sub-commands, wiring and its text views",
		may: []string{"cmd/forgesync/...", "daemon/...", "api", "pipeline", "watch", "installer/...", "inventory/...", "sets/...", "config", "lua/...", "native", "selfupdate", "internal/..."}},
	"cmd/launcher-client":              {owns: "a launcher's use of the daemon, in Go", may: []string{"cmd/launcher-client/forgesyncapi"}},
	"cmd/launcher-client/forgesyncapi": {owns: "the client generated from api/openapi.yaml"},
	"cmd/mkrelease":                    {owns: "the release packaging of make release", may: []string{"api", "lua", "native", "sets/lock", "internal/..."}},
	"cmd/gensurfaces":                  {owns: "writing the example pack's IoStore containers", may: []string{"installer/iostore", "installer/iostore/tocfixture"}},
	"cmd/deltaassemble":                {owns: "a benchmark's measured side", may: []string{"sets/casync"}},
	"cmd/zipdelta":                     {owns: "a benchmark's measuring half"},
	"cmd/framegame":                    {owns: "a benchmark's stand-in game"},

	// The service, and the wire shapes only it and the commands know.
	"daemon": {owns: "the service: the socket and TCP API, events, the status page; wire shapes made once",
		may: []string{"api", "config", "pipeline", "watch", "installer/...", "inventory/...", "sets/...", "native", "selfupdate", "internal/..."}},
	"daemon/setup": {owns: "the player's setup, its undo and uninstall", may: []string{"daemon", "config", "pipeline", "native", "internal/..."}},
	"api":          {owns: "the wire shapes only", may: []string{"internal/..."}, never: []string{"os", "net", "net/http"}},

	// The single writer and its watcher.
	"pipeline": {owns: "the single writer: one transaction per change",
		may:   []string{"installer/...", "inventory/...", "sets/lock", "native", "internal/..."},
		never: []string{"net/http", "github.com/fsnotify/fsnotify", "github.com/kardianos/service"}},
	"watch": {owns: "the drop-folder watcher", may: []string{"internal/..."}, never: []string{"net/http"}},

	// The installing layers.
	"installer/intake":             {owns: "the safe intake of archives", may: []string{"internal/..."}, never: []string{"net/http", "github.com/fsnotify/fsnotify"}},
	"installer/intake/intaketest":  {owns: "unpacking in a child, for tests", may: []string{"installer/intake", "internal/..."}},
	"installer/place":              {owns: "a pack's content in and out of the game", may: []string{"installer/intake", "internal/..."}, never: []string{"net/http", "github.com/fsnotify/fsnotify"}},
	"installer/store":              {owns: "the pack store in the state folder", may: []string{"internal/..."}, never: []string{"net/http", "github.com/fsnotify/fsnotify"}},
	"installer/deploy":             {owns: "forgesync's own files in the game", may: []string{"lua", "internal/..."}, never: []string{"net/http", "github.com/fsnotify/fsnotify"}},
	"installer/iostore":            {owns: "IoStore tables of contents", may: []string{"internal/..."}, never: []string{"net/http"}},
	"installer/iostore/tocfixture": {owns: "IoStore containers for tests", may: []string{"installer/iostore", "internal/..."}},
	"installer/verdict": {owns: "the verdict on one pack",
		may: []string{"installer/intake", "installer/iostore", "inventory", "inventory/rejection", "internal/..."}, never: []string{"net/http", "github.com/fsnotify/fsnotify"}},

	// The catalog.
	"inventory": {owns: "the catalog model, the manifest decoder and its JSON Schema",
		may: []string{"inventory/rejection", "internal/..."}, never: []string{"os", "net", "net/http", "github.com/fsnotify/fsnotify", "github.com/kardianos/service"}},
	"inventory/rejection":         {owns: "the shape of a refusal", may: []string{"internal/..."}, never: []string{"os", "net", "net/http"}},
	"inventory/render":            {owns: "the bytes of the inventory files", may: []string{"inventory", "inventory/rejection", "internal/..."}, never: []string{"os", "net", "net/http"}},
	"inventory/render/rendertest": {owns: "synthetic installed sets, for tests", may: []string{"inventory", "internal/..."}},
	"inventory/publish":           {owns: "publishing files into one folder", may: []string{"internal/..."}, never: []string{"net/http", "github.com/fsnotify/fsnotify"}},

	// Pack sets.
	"sets/lock": {owns: "the lock file", may: []string{"inventory", "inventory/rejection", "internal/..."},
		never: []string{"net", "net/http", "github.com/fsnotify/fsnotify", "github.com/kardianos/service"}},
	"sets/fetch": {owns: "bringing a set to a machine", may: []string{"sets/lock", "sets/casync", "sets/oci", "inventory/rejection", "internal/..."},
		never: []string{"github.com/fsnotify/fsnotify", "github.com/kardianos/service"}},
	"sets/export": {owns: "publishing a set", may: []string{"sets/lock", "sets/casync", "sets/oci", "internal/..."},
		never: []string{"github.com/fsnotify/fsnotify", "github.com/kardianos/service"}},
	"sets/follow": {owns: "a machine following a set", may: []string{"pipeline", "installer/store", "sets/lock", "sets/fetch", "sets/casync", "internal/..."},
		never: []string{"github.com/fsnotify/fsnotify", "github.com/kardianos/service"}},
	"sets/oci": {owns: "a pack set as an OCI artifact", may: []string{"internal/..."}},
	"sets/lan": {owns: "the LAN peer cache: serving peers, finding them", may: []string{"internal/..."},
		never: []string{"github.com/fsnotify/fsnotify", "github.com/kardianos/service"}},
	"sets/casync":  {owns: "casync's chunk formats", may: []string{"internal/..."}, never: []string{"net", "net/http"}},
	"sets/settest": {owns: "what the sets packages' tests share", may: []string{"internal/..."}},

	// Updating forgesync itself: the feed, the signature, the swap.
	"selfupdate": {owns: "updating forgesync itself", may: []string{"sets/lock", "sets/fetch", "internal/..."},
		never: []string{"github.com/fsnotify/fsnotify", "github.com/kardianos/service"}},

	// The rest of the card.
	"config":      {owns: "the TOML configuration", may: []string{"internal/..."}, never: []string{"net/http"}},
	"native":      {owns: "the C door runtime and its module", may: []string{"internal/..."}, never: []string{"net/http"}},
	"lua":         {owns: "the Lua lift scripts"},
	"lua/interp":  {owns: "running the Lua scripts in Go", may: []string{"lua"}},
	"lua/preview": {owns: "the lift preview for authors", may: []string{"lua/interp", "inventory"}},

	// Small helpers with no domain knowledge, and those for tests.
	"internal/...":           {owns: "a helper with no domain knowledge", may: []string{"internal/..."}},
	"internal/errkind":       {owns: "the kinds of failure", may: []string{"internal/..."}, never: []string{"os", "net/http"}},
	"internal/casefold":      {owns: "a case-folding file system, for tests"},
	"internal/toolcheck":     {owns: "tests' external programs", may: []string{"internal/casefold"}},
	"internal/registrytest":  {owns: "an OCI registry, for tests", may: []string{"internal/toolcheck", "internal/..."}},
	"internal/prio/priotest": {owns: "reading a priority back, for tests", may: []string{"internal/..."}},
	"internal/zstd":          {owns: "the Zstandard decoder", never: []string{"os", "net", "net/http"}},
}

// testHelpers are the packages that exist for tests (scripts/deadcode.sh
// lists them too): a dir/... of the allow-list never covers one, so only
// tests, other helpers and the tools that write fixtures import them.
var testHelpers = map[string]bool{
	"installer/intake/intaketest":  true,
	"installer/iostore/tocfixture": true,
	"inventory/render/rendertest":  true,
	"sets/settest":                 true,
	"internal/casefold":            true,
	"internal/prio/priotest":       true,
	"internal/registrytest":        true,
	"internal/toolcheck":           true,
}

// covers reports whether pattern names the module package rel: rel
// itself, or dir/... for dir and the packages under it but test helpers.
func covers(pattern, rel string) bool {
	if pattern == rel {
		return true
	}
	dir, ok := strings.CutSuffix(pattern, "/...")
	return ok && !testHelpers[rel] && (rel == dir || strings.HasPrefix(rel, dir+"/"))
}

// layerOf returns the key and the layer of the module package rel: its
// exact key, else the longest dir/... that covers it.
func layerOf(rel string) (string, layer, bool) {
	if l, ok := layers[rel]; ok {
		return rel, l, true
	}
	best := ""
	for key := range layers {
		if strings.HasSuffix(key, "/...") && covers(key, rel) && len(key) > len(best) {
			best = key
		}
	}
	return best, layers[best], best != ""
}

// TestLayers holds every package of the module to its layer's allow-list:
// a package imports only the module packages its layer may import, none
// of the outside packages its layer knows nothing of (checked as direct
// imports: a library may use net/http for features we never call), and a
// package in no layer, or a layer naming no package, fails.
func TestLayers(t *testing.T) {
	used := map[string]bool{}
	for _, p := range listPackages(t) {
		rel := strings.TrimPrefix(p.ImportPath, modPath)
		key, l, ok := layerOf(rel)
		if !ok {
			t.Errorf("%s is in no layer: place it in the allow-list (layers, cmd/forgesync/layers_test.go) with the packages of the module it may import", rel)
			continue
		}
		used[key] = true
		may := "nothing of the module"
		if len(l.may) > 0 {
			may = strings.Join(l.may, ", ")
		}
		for _, imp := range p.Imports {
			dep, inModule := strings.CutPrefix(imp, modPath)
			switch {
			case inModule && !slices.ContainsFunc(l.may, func(pattern string) bool { return covers(pattern, dep) }):
				t.Errorf("%s imports %s, which its layer does not allow: %s (%s) may import %s", rel, dep, key, l.owns, may)
			case !inModule && slices.Contains(l.never, imp):
				t.Errorf("%s imports %s, which its layer knows nothing of: %s (%s)", rel, imp, key, l.owns)
			}
		}
	}
	for key := range layers {
		if !used[key] {
			t.Errorf("the allow-list's layer %s names no package of the module: remove it, or name the package it was for", key)
		}
	}
}

// TestDomainKnowsNoWire: the domain owns its types and reports through
// observers it owns; the daemon and the commands convert to api's wire
// shapes once, at the edge. No other package depends on api, directly or
// not: `go list -deps ./pipeline ./sets/follow` names no api.
func TestDomainKnowsNoWire(t *testing.T) {
	edge := func(rel string) bool {
		return rel == "api" || rel == "daemon" || strings.HasPrefix(rel, "daemon/") || strings.HasPrefix(rel, "cmd/")
	}
	for _, p := range listPackages(t) {
		rel := strings.TrimPrefix(p.ImportPath, modPath)
		if edge(rel) {
			continue
		}
		for _, d := range p.Deps {
			if d == modPath+"api" {
				t.Errorf("%s depends on api: only the edge (daemon, cmd) knows the wire shapes", rel)
			}
		}
	}
}

// TestBinaryLinks: what the forgesync binary never links, by import path
// prefix, and why.
func TestBinaryLinks(t *testing.T) {
	never := []struct{ prefix, why string }{
		{"github.com/oapi-codegen/", "the generated launcher client and its runtime are for launchers and the tests"},
		{modPath + "cmd/launcher-client", "the generated launcher client is for launchers and the tests"},
		{"github.com/goreleaser/", "the release packaging (nfpm, the .deb) is cmd/mkrelease's"},
		{"github.com/distribution/distribution/", "the registry the tests run is for tests"},
		{modPath + "internal/registrytest", "the registry the tests run is for tests"},
	}
	out, err := exec.Command("go", "list", "-deps", modPath+"cmd/forgesync").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	for _, d := range strings.Fields(string(out)) {
		for _, n := range never {
			if strings.HasPrefix(d, n.prefix) {
				t.Errorf("cmd/forgesync depends on %s: %s, no part of the binary", d, n.why)
			}
		}
	}
}
