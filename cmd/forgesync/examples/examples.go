// Package examples owns the example packs: the folders beside this file,
// used by the README and the tests, and embedded in the binary so that
// `forgesync demo` runs anywhere; the game folder demo mode lays out with
// them and the guide it prints; and the starter files of `forgesync init`.
package examples

import "embed"

// packsFS holds every example pack, one folder per pack id.
//
//go:embed */forgepack.json */README.md glass-works/content
var packsFS embed.FS

// packs lists the example pack folders in FS.
func packs() []string {
	entries, _ := packsFS.ReadDir(".")
	var out []string
	for _, e := range entries {
		if e.IsDir() {
			out = append(out, e.Name())
		}
	}
	return out
}
