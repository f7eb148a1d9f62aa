package wire_test

import (
	"encoding/json"
	"testing"
	"testing/fstest"

	"github.com/mjolnir-forge/forgesync/internal/wire"
	"github.com/mjolnir-forge/forgesync/native"
)

// modsFS is a Mods folder with each gating mod's version.txt ("-": none).
func modsFS(forge, lobby, loader string) fstest.MapFS {
	m := fstest.MapFS{}
	for mod, v := range map[string]string{native.ModForge: forge, native.ModLobby: lobby, native.ModLevelLoader: loader} {
		if v != "-" {
			m[mod+"/version.txt"] = &fstest.MapFile{Data: []byte(v)}
		}
	}
	return m
}

func TestGatesJSON(t *testing.T) {
	g := wire.Gates(native.CheckGates(modsFS("0.3.0\n", "0.19.2\n", "0.9.8\n")))
	b, err := json.Marshal(g)
	if err != nil {
		t.Fatal(err)
	}
	var back map[string]any
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"mods", "door_automation", "pack_lifts", "reasons"} {
		if _, ok := back[k]; !ok {
			t.Errorf("status JSON %s lacks %q", b, k)
		}
	}
	mods := back["mods"].([]any)
	first := mods[0].(map[string]any)
	if first["mod"] != "MJOLNIRForge" || first["version"] != "0.3.0" || first["minimum"] != "0.4.0" || first["state"] != "old" {
		t.Errorf("status JSON mods[0] = %v", first)
	}
}
