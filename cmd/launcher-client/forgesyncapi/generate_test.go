package forgesyncapi

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestGeneratedClientIsCurrent regenerates the client from api/openapi.yaml
// with the oapi-codegen that go.mod pins, and requires the committed
// client.gen.go to be exactly that: a document the generator cannot take
// fails here, and so does a change to the document nobody regenerated.
func TestGeneratedClientIsCurrent(t *testing.T) {
	// The committed configuration, writing elsewhere.
	cfg, err := os.ReadFile("cfg.yaml")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "client.gen.go")
	if !bytes.Contains(cfg, []byte("\noutput: client.gen.go\n")) {
		t.Fatal("cfg.yaml does not say `output: client.gen.go`")
	}
	cfg = bytes.Replace(cfg, []byte("\noutput: client.gen.go\n"), []byte("\noutput: "+out+"\n"), 1)
	if err := os.WriteFile(filepath.Join(dir, "cfg.yaml"), cfg, 0o644); err != nil {
		t.Fatal(err)
	}
	doc, err := filepath.Abs(filepath.Join("..", "..", "..", "api", "openapi.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "tool", "oapi-codegen", "-config", filepath.Join(dir, "cfg.yaml"), doc)
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go tool oapi-codegen could not generate a client from api/openapi.yaml: %v\n%s", err, msg)
	}
	fresh, err := os.ReadFile(out)
	if err != nil {
		t.Fatalf("go tool oapi-codegen wrote no client: %v", err)
	}
	committed, err := os.ReadFile("client.gen.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(fresh, committed) {
		line := 1 + bytes.Count(committed[:commonPrefix(fresh, committed)], []byte("\n"))
		t.Fatalf("client.gen.go differs from what api/openapi.yaml generates, from line %d on: run `go generate ./examples/launcher-client/forgesyncapi` and commit the result", line)
	}
}

// commonPrefix returns how many leading bytes a and b share.
func commonPrefix(a, b []byte) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}
