package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/mjolnir-forge/forgesync/api"
	"github.com/mjolnir-forge/forgesync/cmd/launcher-client/forgesyncapi"
	"github.com/mjolnir-forge/forgesync/installer/intake"
	"github.com/mjolnir-forge/forgesync/internal/toolcheck"
)

// tsDir is the TypeScript example; `npm ci` there installs its pinned
// packages (.ci/run does).
const tsDir = "typescript"

// node runs node with args in the TypeScript example's folder and returns
// its standard output, standard error and error.
func node(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), "node", args...)
	cmd.Dir = tsDir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	return stdout.String(), stderr.String(), err
}

// needTypeScript stops the test where node or the example's packages are
// missing (a failure under CI=true).
func needTypeScript(t *testing.T) {
	t.Helper()
	toolcheck.Need(t, "node")
	for _, p := range []string{"typescript/bin/tsc", "openapi-typescript/bin/cli.js", "undici/package.json"} {
		if _, err := os.Stat(filepath.Join(tsDir, "node_modules", p)); err != nil {
			toolcheck.Missing(t, "the TypeScript example's npm packages (run `npm ci` in cmd/launcher-client/typescript): %v", err)
		}
	}
}

// tscOnce compiles the example once for the package's tests; tscFailed
// holds what tsc said when it failed.
var (
	tscOnce   sync.Once
	tscFailed string
)

// buildTypeScript compiles the example with tsc into build/, once.
func buildTypeScript(t *testing.T) {
	t.Helper()
	tscOnce.Do(func() {
		if out, errs, err := node(t, "node_modules/typescript/bin/tsc", "-p", "."); err != nil {
			tscFailed = fmt.Sprintf("%v\n%s%s", err, out, errs)
		}
	})
	if tscFailed != "" {
		t.Fatalf("tsc: %s", tscFailed)
	}
}

// TestTypeScriptExample: the committed types are what openapi-typescript
// makes of api/openapi.yaml today, the example compiles with tsc, and,
// run against a live daemon over its socket with Node's global fetch and
// undici's Agent, it prints the status and folders, installs an archive by
// sending it as the body, lists the pack and reads the served contract.
func TestTypeScriptExample(t *testing.T) {
	needTypeScript(t)
	fresh := filepath.Join(t.TempDir(), "forgesync.d.ts")
	if _, errs, err := node(t, "node_modules/openapi-typescript/bin/cli.js", "../../../api/openapi.yaml", "-o", fresh); err != nil {
		t.Fatalf("openapi-typescript api/openapi.yaml: %v\n%s", err, errs)
	}
	want, err := os.ReadFile(fresh)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile(filepath.Join(tsDir, "src", "forgesync.d.ts")); err != nil || !bytes.Equal(got, want) {
		t.Fatalf("typescript/src/forgesync.d.ts differs from what openapi-typescript makes of api/openapi.yaml (%v): run `npm run generate` in cmd/launcher-client/typescript and commit the result", err)
	}
	buildTypeScript(t)

	d := startDaemon(t)
	archive := filepath.Join(t.TempDir(), "glass-works.zip")
	l, err := intake.ListPack(filepath.Join("../forgesync/examples", "glass-works"), intake.DefaultLimits(), nil)
	if err != nil || len(l.Problems) > 0 {
		t.Fatalf("list glass-works: %v %v", err, l.Problems)
	}
	var buf bytes.Buffer
	if err := intake.WritePackZip(&buf, os.DirFS(l.Root), l.Files); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(archive, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errs, err := node(t, "build/launcher.js", "--socket", d.sock, "--install", archive)
	if err != nil {
		t.Fatalf("node build/launcher.js: %v\n%s%s", err, out, errs)
	}
	var doc struct {
		Paths map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(api.OpenAPIJSON, &doc); err != nil {
		t.Fatal(err)
	}
	drop, err := filepath.Abs(d.drop)
	if err != nil {
		t.Fatal(err)
	}
	lines := []string{
		`forgesync \S+ \(pid \d+\): idle, generation 0`,
		`drop folder: ` + regexp.QuoteMeta(drop),
		`inventory folder: ` + regexp.QuoteMeta(filepath.Dir(drop)),
		`install glass-works\.zip: glass-works \S+ installed \(\d+\.\d{3} s\)`,
		`pack glass-works \S+ enabled: 3 pieces`,
		`contract: OpenAPI 3\.1\.0, ` + strconv.Itoa(len(doc.Paths)) + ` paths`,
	}
	if !regexp.MustCompile(`^` + strings.Join(lines, `\n`) + `\n$`).MatchString(out) {
		t.Errorf("the TypeScript example printed\n%s%s\nwant lines matching\n%s", out, errs, strings.Join(lines, "\n"))
	}

	// The daemon, asked by the Go client, has the pack the example sent.
	c, err := newClient(d.sock, "", "")
	if err != nil {
		t.Fatal(err)
	}
	packs, err := c.ListPacksWithResponse(t.Context())
	if err != nil || packs.JSON200 == nil || !slices.ContainsFunc(packs.JSON200.Packs, func(p forgesyncapi.Pack) bool { return p.Id == "glass-works" }) {
		t.Errorf("after the example's upload the daemon lists %+v, %v; want glass-works", packs, err)
	}

	// No daemon: a clear error and exit 1.
	_, errs, err = node(t, "build/launcher.js", "--socket", filepath.Join(t.TempDir(), "none.sock"))
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || !strings.HasPrefix(errs, "launcher: ") {
		t.Errorf("the example without a daemon = %v, %q; want exit 1 and a launcher: message", err, errs)
	}
}
