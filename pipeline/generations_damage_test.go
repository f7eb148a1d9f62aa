package pipeline

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mjolnir-forge/forgesync/installer/store"
)

// TestDamagedGenerations damages the generations recorded in packs.json
// (null, {}, [], [null], [{}], a generation twice, a pack string that is
// not one, a number where a list goes) and checks that Open, a sync and
// ReadHistory neither panic nor act on it: each either works or refuses
// naming packs.json.
func TestDamagedGenerations(t *testing.T) {
	skipUnderRace(t)
	for _, tc := range []struct{ name, value string }{
		{"null", `null`},
		{"empty object", `{}`},
		{"empty array", `[]`},
		{"null generation", `[null]`},
		{"empty generation", `[{}]`},
		{"twice", `[{"n":1,"packs":[]},{"n":1}]`},
		{"later lists packs", `[{"n":1,"packs":[]},{"n":2,"packs":["a 1.0.0 x 1"]}]`},
		{"bad pack string", `[{"n":1,"packs":["good-pack"]}]`},
		{"unset unknown", `[{"n":1,"packs":[]},{"n":2,"unset":["nobody"]}]`},
		{"number", `7`},
		{"garbage string", `"\u0000\u00ff"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			p := e.open(t)
			e.dropPack(t, "good.zip", spec{id: "good-pack", version: "1.0.0", doors: 1})
			mustSync(t, p, map[string]Result{"good.zip": ResultInstalled})
			p.Close()
			path := filepath.Join(e.state, store.StateFileName)
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			var doc map[string]json.RawMessage
			if err := json.Unmarshal(data, &doc); err != nil {
				t.Fatal(err)
			}
			doc["generations"] = json.RawMessage(tc.value)
			data, err = json.Marshal(doc)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, data, 0o600); err != nil {
				t.Fatal(err)
			}
			e.dropPack(t, "next.zip", spec{id: "next-pack", version: "1.0.0", doors: 1})
			func() {
				defer func() {
					if r := recover(); r != nil {
						t.Fatalf("generations %s: panic %v", tc.name, r)
					}
				}()
				p, _, err := Open(t.Context(), e.options())
				if err == nil {
					_, err = p.SyncDrop(t.Context())
					p.Close()
				}
				if err != nil && (!errors.Is(err, store.ErrStateRefused) || !strings.Contains(err.Error(), path)) {
					t.Errorf("Open and Sync with generations %s = %v; want them to work or a refusal naming %s", tc.name, err, path)
				}
				if _, err := ReadHistory(e.state); err != nil && !strings.Contains(err.Error(), path) {
					t.Errorf("ReadHistory with generations %s = %v; want it to work or name %s", tc.name, err, path)
				}
			}()
		})
	}
}
