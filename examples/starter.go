package examples

import (
	"embed"
	"strings"
)

//go:embed starter/*.tmpl
var starterFS embed.FS

// Starter returns the files of a new pack with id packID, as `forgesync
// init` writes them: a manifest that names its JSON Schema (schemaURL) and
// passes `forgesync scan` as written, and a README saying what goes where.
// The folder content/, for the cooked containers, is the caller's to make.
// packID must already be a valid pack slug.
func Starter(packID, schemaURL string) map[string][]byte {
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
