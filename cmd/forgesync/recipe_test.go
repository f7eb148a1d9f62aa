package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/mjolnir-forge/forgesync/cmd/forgesync/cli"
	"github.com/mjolnir-forge/forgesync/inventory"
)

// commandsIn returns the command lines of the first fenced block of lang
// in md, without their trailing comments.
func commandsIn(t *testing.T, md, lang string) []string {
	t.Helper()
	block := regexp.MustCompile("(?s)```" + lang + "\n(.*?)```").FindStringSubmatch(md)
	if block == nil {
		t.Fatalf("no ```%s block in\n%s", lang, md)
	}
	var cmds []string
	for _, line := range strings.Split(block[1], "\n") {
		line = strings.TrimSpace(line)
		if i := strings.Index(line, " #"); i >= 0 {
			line = strings.TrimSpace(line[:i])
		}
		if line != "" {
			cmds = append(cmds, line)
		}
	}
	return cmds
}

// runLine runs one forgesync command line, typed in the current folder.
func runLine(t *testing.T, line string) {
	t.Helper()
	args := strings.Fields(line)
	if args[0] != "forgesync" {
		t.Fatalf("%q does not run forgesync", line)
	}
	if code, out, errs := runCLI(t, args[1:]...); code != cli.ExitOK {
		t.Fatalf("%s = %d\n%s%s", line, code, out, errs)
	}
}

// TestStarterReadmeCommands: init, then the commands of the README it
// writes, as written, then scan . again: all pass, and the zip is not in
// the pack.
func TestStarterReadmeCommands(t *testing.T) {
	t.Chdir(t.TempDir())
	runLine(t, "forgesync init neon-halls")
	readme, err := os.ReadFile(filepath.Join("neon-halls", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	cmds := commandsIn(t, string(readme), "sh")
	if len(cmds) < 2 {
		t.Fatalf("README commands = %q, want scan and pack at least", cmds)
	}
	t.Chdir("neon-halls")
	for _, c := range cmds {
		runLine(t, c)
	}
	runLine(t, "forgesync scan .")
	if _, err := os.Stat("../neon-halls-0.1.0.zip"); err != nil {
		t.Fatalf("pack . wrote no zip beside the folder: %v", err)
	}
}

// TestReadmeAuthorSession: the README's "For pack authors" session, run as
// written (cd included), ends with every command passing and scan .
// still passing after pack . and lift-preview.
func TestReadmeAuthorSession(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	section := string(readme)
	section = section[strings.Index(section, "## For pack authors"):]
	t.Chdir(t.TempDir())
	cmds := commandsIn(t, section, "sh")
	for _, c := range cmds {
		if dir, ok := strings.CutPrefix(c, "cd "); ok {
			t.Chdir(dir)
			continue
		}
		runLine(t, c)
	}
	if len(cmds) < 5 {
		t.Fatalf("README session = %q; want init, cd, scan, pack and scan at least", cmds)
	}
	runLine(t, "forgesync scan .")
}

// git runs the git program at path in dir, as an author without a
// global config.
func git(t *testing.T, path, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command(path, append([]string{"-C", dir, "-c", "user.name=Author", "-c", "user.email=a@example.org", "-c", "init.defaultBranch=main", "-c", "commit.gpgsign=false"}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL="+os.DevNull, "GIT_CONFIG_SYSTEM="+os.DevNull)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// TestReadmeCIRecipe: what the README's CI recipe says init writes is
// what init writes: the workflow file, its FORGESYNC_VERSION, the SHA256SUMS
// check and the scan it runs (TestInitWorkflow runs that workflow's steps).
func TestReadmeCIRecipe(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	section := string(readme)
	section = section[strings.Index(section, "In your pack repository's CI"):]
	section = section[:strings.Index(section, "\n\n")]
	t.Chdir(t.TempDir())
	runLine(t, "forgesync init neon-halls")
	wf, err := os.ReadFile(filepath.Join("neon-halls", ".github", "workflows", "forgesync.yml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, claim := range []string{".github/workflows/forgesync.yml", "FORGESYNC_VERSION", "SHA256SUMS", "forgesync scan --format github ."} {
		if !strings.Contains(section, claim) {
			t.Errorf("the README's CI recipe does not name %s:\n%s", claim, section)
		}
		if claim != ".github/workflows/forgesync.yml" && !strings.Contains(string(wf), claim) {
			t.Errorf("the workflow init writes lacks %s, which the README names:\n%s", claim, wf)
		}
	}
}

// TestPackRefusesNonZipName: pack writes a zip, so it will not name it
// .7z; nothing is written.
func TestPackRefusesNonZipName(t *testing.T) {
	out := filepath.Join(t.TempDir(), "glass-works.7z")
	code, o, errs := runCLI(t, "pack", "examples/glass-works", "-o", out)
	want := "forgesync pack: -o " + out + ": pack writes a zip, so the name must end in .zip\n"
	if code != cli.ExitFailure || o != "" || errs != want {
		t.Fatalf("pack -o .7z = %d\n%s%s\nwant 2 and %q", code, o, errs, want)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Fatalf("pack wrote %s: %v", out, err)
	}
}

// TestPackBesideFolder: without -o, pack writes <id>-<version>.zip beside
// the folder, and says so.
func TestPackBesideFolder(t *testing.T) {
	dir := copyDir(t, "examples/glass-works")
	t.Chdir(dir)
	code, o, errs := runCLI(t, "pack", ".")
	if want := "glass-works 2.0.0: wrote ../glass-works-2.0.0.zip (4 files)\n"; code != cli.ExitOK || o != want {
		t.Fatalf("pack . = %d\n%s%s\nwant %q", code, o, errs, want)
	}
	if code, o, errs := runCLI(t, "scan", "."); code != cli.ExitOK {
		t.Fatalf("scan . after pack . = %d\n%s%s", code, o, errs)
	}
}

// TestSchemaOffline: `forgesync schema` saves the manifest's JSON Schema
// beside the pack; a manifest naming the copy by a relative $schema still
// passes scan, and a validator with no network (file loading only)
// compiles the copy and accepts the manifest.
func TestSchemaOffline(t *testing.T) {
	t.Chdir(t.TempDir())
	runLine(t, "forgesync init neon-halls")
	if code, out, errs := runCLI(t, "schema"); code != cli.ExitOK || out != string(inventory.JSONSchema) {
		t.Fatalf("schema = %d, %d bytes, %s; want the schema", code, len(out), errs)
	}
	if code, out, errs := runCLI(t, "schema", "-o", "forgepack.schema.json"); code != cli.ExitOK || out != "wrote forgepack.schema.json\n" {
		t.Fatalf("schema -o = %d\n%s%s", code, out, errs)
	}
	manifest := filepath.Join("neon-halls", "forgepack.json")
	data, err := os.ReadFile(manifest)
	if err != nil {
		t.Fatal(err)
	}
	data = []byte(strings.Replace(string(data), `"`+inventory.JSONSchemaURL+`"`, `"../forgepack.schema.json"`, 1))
	if !strings.Contains(string(data), `"$schema": "../forgepack.schema.json"`) {
		t.Fatalf("manifest has no $schema to point at the copy:\n%s", data)
	}
	if err := os.WriteFile(manifest, data, 0o644); err != nil {
		t.Fatal(err)
	}
	runLine(t, "forgesync scan neon-halls")

	abs, err := filepath.Abs("forgepack.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.UseLoader(jsonschema.SchemeURLLoader{"file": jsonschema.FileLoader{}}) // no http
	sch, err := c.Compile(abs)
	if err != nil {
		t.Fatalf("compile the saved schema offline: %v", err)
	}
	inst, err := jsonschema.UnmarshalJSON(strings.NewReader(string(data)))
	if err != nil {
		t.Fatal(err)
	}
	if err := sch.Validate(inst); err != nil {
		t.Fatalf("the saved schema rejects the starter manifest: %v", err)
	}
}
