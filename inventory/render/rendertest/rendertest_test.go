package rendertest

import (
	"reflect"
	"testing"

	"github.com/mjolnir-forge/forgesync/inventory"
	"github.com/mjolnir-forge/forgesync/inventory/render"
)

func TestPacksAreValid(t *testing.T) {
	packs := Packs(140)
	doors, ids := 0, map[string]bool{}
	for _, p := range packs {
		m := p.Manifest
		if len(m.Pieces) != PiecesPerPack || !p.Enabled || len(p.ArchiveSHA256) != 64 || ids[m.ID] {
			t.Fatalf("pack %s: %d pieces, enabled %v, hash %q, repeated %v", m.ID, len(m.Pieces), p.Enabled, p.ArchiveSHA256, ids[m.ID])
		}
		ids[m.ID] = true
		doors += m.Doors()
		norm, err := render.Manifest(m)
		if err != nil {
			t.Fatal(err)
		}
		back, err := inventory.Decode(m.ID, norm)
		if err != nil {
			t.Fatalf("pack %s is invalid: %v", m.ID, err)
		}
		if !reflect.DeepEqual(back, m) {
			t.Fatalf("pack %s changes through its normalized form", m.ID)
		}
	}
	if doors != inventory.MaxDoorsInstalled { // 140 packs could hold 280
		t.Errorf("%d doors in 140 packs; want 256 (the limit)", doors)
	}
	if n := Packs(300); n[299].Manifest.Doors() != 0 {
		t.Errorf("pack 299 of 300 has doors; the set would pass the limit")
	}
}
