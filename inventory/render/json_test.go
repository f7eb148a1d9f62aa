package render

import (
	"math"
	"strings"
	"testing"

	"github.com/mjolnir-forge/forgesync/inventory"
)

// TestNumbersBySpec: numbers that encoding/json writes with an exponent,
// or as -0, are written by the rule of SPEC §6 in both JSON files.
func TestNumbersBySpec(t *testing.T) {
	p := pack(t, "numbers-pack", piece("numbers-pack", "tiny", inventory.KindBlock, "SM_Tiny"))
	// Past the validator's range: the writer holds any finite number.
	p.Manifest.Pieces[0].Dimensions = inventory.Vec3{1e-7, 1e21, math.Copysign(0, -1)}
	want := "\"dimensions_m\": [\n        0.0000001,\n        1000000000000000000000,\n        0\n      ]"
	got, err := Manifest(p.Manifest)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(got), want) {
		t.Errorf("Manifest = %s; want %s", got, want)
	}
	inst := string(files(t, []inventory.InstalledPack{p})[installedJSONName])
	for _, n := range []string{"0.0000001,", "1000000000000000000000,"} {
		if !strings.Contains(inst, n) || strings.Contains(inst, "e-07") || strings.Contains(inst, "e+21") || strings.Contains(inst, "-0\n") {
			t.Errorf("installed.json = %s; want %s and no exponent or -0", inst, n)
		}
	}
}
