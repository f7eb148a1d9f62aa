package pipeline

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/mjolnir-forge/forgesync/installer/store"
	"github.com/mjolnir-forge/forgesync/internal/atomicfile"

	"github.com/mjolnir-forge/forgesync/inventory"
	"github.com/mjolnir-forge/forgesync/inventory/publish"
	"github.com/mjolnir-forge/forgesync/inventory/render"
)

// rendered is the inventory of a set of packs, ready to publish: its
// files and the SHA-256 of each, which the state keeps to know later
// whether the files on disk are still these.
type rendered struct {
	files  []publish.File
	hashes map[string]string
}

// renderInventory renders the inventory of packs.
func renderInventory(packs []inventory.InstalledPack) (*rendered, error) {
	out, err := render.Files(packs)
	if err != nil {
		return nil, fmt.Errorf("render inventory: %w", err)
	}
	r := &rendered{files: make([]publish.File, len(out)), hashes: make(map[string]string, len(out))}
	for i, f := range out {
		r.files[i] = publish.File{Name: f.Name, Data: f.Data}
		sum := sha256.Sum256(f.Data)
		r.hashes[f.Name] = hex.EncodeToString(sum[:])
	}
	return r, nil
}

// publish publishes a rendered inventory prepare-then-swap, identity
// bindings last, waiting out held files with r (the pass's). It returns
// the files rewritten.
func (p *Pipeline) publish(r atomicfile.Renamer, inv *rendered) ([]string, error) {
	res, err := publish.Publish(InventoryDir(p.opts.Mods), inv.files, publish.Options{
		Renamer:   r,
		AfterStep: func(step string) { p.step("publish:" + step) },
	})
	if err != nil {
		return nil, err
	}
	if res.Written == nil {
		res.Written = []string{}
	}
	return res.Written, nil
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

// busyFile returns the inventory file a failed publication is about, or
// "".
func busyFile(err error) string {
	var pe *publish.Error
	if errors.As(err, &pe) && pe.Name != "" {
		return filepath.Join(pe.Dir, pe.Name)
	}
	return ""
}
