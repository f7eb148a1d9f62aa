package pipeline

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"

	"github.com/mjolnir-forge/forgesync/internal/atomicfile"
	"github.com/mjolnir-forge/forgesync/store"

	"github.com/mjolnir-forge/forgesync/inventory"
	"github.com/mjolnir-forge/forgesync/inventory/publish"
	"github.com/mjolnir-forge/forgesync/inventory/render"
)

// publish renders the inventory of packs and publishes it prepare-then-swap,
// identity bindings last, waiting out held files with r (the pass's). It
// returns the files rewritten and the SHA-256 of every file, for the state
// to remember what it published.
func (p *Pipeline) publish(r atomicfile.Renamer, packs []inventory.InstalledPack) ([]string, map[string]string, error) {
	rendered, err := render.Files(packs)
	if err != nil {
		return nil, nil, fmt.Errorf("render inventory: %w", err)
	}
	files := make([]publish.File, len(rendered))
	hashes := make(map[string]string, len(rendered))
	for i, f := range rendered {
		files[i] = publish.File{Name: f.Name, Data: f.Data}
		sum := sha256.Sum256(f.Data)
		hashes[f.Name] = hex.EncodeToString(sum[:])
	}
	res, err := publish.Publish(InventoryDir(p.opts.Mods), files, publish.Options{
		Renamer:   r,
		AfterStep: func(step string) { p.step("publish:" + step) },
	})
	if err != nil {
		return nil, nil, err
	}
	if res.Written == nil {
		res.Written = []string{}
	}
	return res.Written, hashes, nil
}

// maxInventoryBytes bounds an inventory file read back to compare: one
// larger (or not a regular file) is rendered again.
const maxInventoryBytes = 256 << 20

// inventoryCurrent reports whether the inventory files on disk are exactly
// those last published from st, so that nothing needs rendering.
func (p *Pipeline) inventoryCurrent(st *store.State) bool {
	names := render.Names()
	if len(st.Inventory) != len(names) {
		return false
	}
	for _, n := range names {
		data, err := atomicfile.ReadFile(filepath.Join(InventoryDir(p.opts.Mods), n), maxInventoryBytes)
		if err != nil {
			return false
		}
		sum := sha256.Sum256(data)
		if hex.EncodeToString(sum[:]) != st.Inventory[n] {
			return false
		}
	}
	return true
}
