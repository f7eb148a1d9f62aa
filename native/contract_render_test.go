package native

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mjolnir-forge/forgesync/inventory"
	"github.com/mjolnir-forge/forgesync/inventory/render"
	"github.com/mjolnir-forge/forgesync/inventory/render/rendertest"
)

// rowsFromPacks derives the rows the C parser must return straight from
// the manifests, independently of the bytes the renderer wrote.
func rowsFromPacks(packs []inventory.InstalledPack) ([]doorRow, []installedRow) {
	var doors []doorRow
	var inst []installedRow
	for _, p := range packs {
		if !p.Enabled {
			continue
		}
		m := p.Manifest
		for _, pc := range m.Pieces {
			inst = append(inst, installedRow{pc.Tag, m.ID, m.Version, pc.ID, string(pc.Kind), pc.Class})
			if d := pc.Door; d != nil {
				doors = append(doors, doorRow{Tag: pc.Tag, Travel: d.TravelM, Speed: d.SpeedMS,
					TriggerX: d.TriggerSizeM[0], TriggerY: d.TriggerSizeM[1], TrigZ: d.TriggerSizeM[2], Hold: d.HoldOpenS,
					Width: pc.Dimensions[0], Depth: pc.Dimensions[1], Height: pc.Dimensions[2]})
			}
		}
	}
	slices.SortFunc(doors, func(a, b doorRow) int { return strings.Compare(a.Tag, b.Tag) })
	slices.SortFunc(inst, func(a, b installedRow) int { return strings.Compare(a.Tag, b.Tag) })
	return doors, inst
}

// TestContractRenderer feeds the C parser the doors.txt and installed.txt
// that the daemon's renderer writes — for the example packs, and for a
// generated set at the 256-door limit — and checks every row against the
// manifests, field by field.
func TestContractRenderer(t *testing.T) {
	driver := buildDriver(t)
	var examples []inventory.InstalledPack
	paths, _ := filepath.Glob("../cmd/forgesync/examples/*/forgepack.json")
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		m, err := inventory.Decode(p, data)
		if err != nil {
			t.Fatal(err)
		}
		examples = append(examples, inventory.InstalledPack{Manifest: m, Enabled: true, ArchiveSHA256: strings.Repeat("0", 64)})
	}
	sets := map[string][]inventory.InstalledPack{
		"examples":   examples,
		"limit-256":  rendertest.Packs(200),
		"one-closed": append(slices.Clone(examples[:1]), inventory.InstalledPack{Manifest: examples[1].Manifest, Enabled: false, ArchiveSHA256: strings.Repeat("1", 64)}),
	}
	for name, packs := range sets {
		t.Run(name, func(t *testing.T) {
			files, err := render.Files(packs)
			if err != nil {
				t.Fatal(err)
			}
			var doorsText, instText []byte
			for _, f := range files {
				switch f.Name {
				case render.DoorsName:
					doorsText = f.Data
				case render.InstalledName:
					instText = f.Data
				}
			}
			doors, inst := rowsFromPacks(packs)
			if name == "limit-256" && len(doors) != inventory.MaxDoorsInstalled {
				t.Fatalf("limit set has %d doors; want %d", len(doors), inventory.MaxDoorsInstalled)
			}
			bound := map[string]bool{}
			for _, r := range inst {
				if r.Kind == "panel" {
					bound[r.Tag] = true
				}
			}
			res := runContract(t, driver, doorsText, instText)
			compareContract(t, res, doors, bound, inst)
			if len(res.doorRejects) != 0 {
				t.Errorf("C rejected rendered door rows: %+v", res.doorRejects)
			}
		})
	}
}
