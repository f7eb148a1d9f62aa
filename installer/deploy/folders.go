package deploy

import (
	"path/filepath"

	"github.com/mjolnir-forge/forgesync/internal/samepath"
)

// Folders returns the folders forgesync deploys into, each once: the
// folder of every name of deps under its target, and that of every file
// the ledger in stateDir records (a deployment since turned off or
// dropped included). A ledger that cannot be read adds none: the next
// deploy reports it. It touches nothing.
func Folders(stateDir string, deps ...Deployment) []string {
	seen := map[string]bool{}
	var out []string
	add := func(dir string) {
		if k := samepath.Key(dir); !seen[k] {
			seen[k] = true
			out = append(out, dir)
		}
	}
	for _, dep := range deps {
		if dep.checkNames() != nil {
			continue
		}
		for _, n := range dep.Names {
			add(filepath.Dir(filepath.Join(dep.Target, filepath.FromSlash(n))))
		}
	}
	if led, err := readLedger(filepath.Join(stateDir, ledgerName)); err == nil {
		for _, e := range sortedEntries(led) {
			add(filepath.Dir(e.Path))
		}
	}
	return out
}
