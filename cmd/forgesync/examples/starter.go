package examples

import (
	"embed"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/mjolnir-forge/forgesync/internal/atomicfile"
	"github.com/mjolnir-forge/forgesync/inventory"
)

//go:embed starter/*.tmpl
var starterFS embed.FS

// starter returns the files of a new pack with id packID, as `forgesync
// init` writes them: a manifest that names its JSON Schema (schemaURL) and
// passes `forgesync scan` as written, and a README saying what goes where.
// The folder content/, for the cooked containers, is the caller's to make.
// packID must already be a valid pack slug.
func starter(packID, schemaURL string) map[string][]byte {
	r := strings.NewReplacer("{{ID}}", packID, "{{NAME}}", displayName(packID), "{{SCHEMA}}", schemaURL)
	out := map[string][]byte{}
	for _, name := range []string{"forgepack.json", "README.md"} {
		tmpl, err := starterFS.ReadFile("starter/" + name + ".tmpl")
		if err != nil {
			panic("examples: starter template missing: " + err.Error()) // embedded at build time
		}
		out[name] = []byte(r.Replace(string(tmpl)))
	}
	return out
}

// displayName turns a slug into words: "foundry-wide" is "Foundry Wide".
func displayName(slug string) string {
	words := strings.Split(slug, "-")
	for i, w := range words {
		words[i] = strings.ToUpper(w[:1]) + w[1:]
	}
	return strings.Join(words, " ")
}

// Init writes the starter pack (see starter) into dir, which must be empty
// or absent, with the pack id id (the folder's name when empty) and the
// manifest naming the JSON Schema at schemaURL.
func Init(dir, id, schemaURL string) error {
	if id == "" {
		id = filepath.Base(filepath.Clean(dir))
	}
	if !inventory.IsPackID(id) {
		return fmt.Errorf("pack id %q: must be 3–48 bytes of [a-z0-9] with single '-' between them (name the folder so, or pass --id)", id)
	}
	if entries, err := os.ReadDir(dir); err == nil && len(entries) > 0 {
		return fmt.Errorf("%s: not empty (%d entries); init only starts a pack in an empty or new folder", dir, len(entries))
	} else if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	if err := os.MkdirAll(filepath.Join(dir, "content"), 0o755); err != nil {
		return err
	}
	for name, data := range starter(id, schemaURL) {
		if err := atomicfile.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return err
		}
	}
	return nil
}
