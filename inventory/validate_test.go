package inventory

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// base returns a valid manifest as a tree of maps, for tests to break one
// field at a time.
func base() map[string]any {
	return map[string]any{
		"schema":      1,
		"id":          "test-pack",
		"version":     "1.0.0",
		"name":        "Test Pack",
		"authors":     []any{"Tester"},
		"description": "A pack for tests.",
		"pieces": []any{
			map[string]any{
				"id":           "lift_block",
				"kind":         "block",
				"tag":          `mjolnir\forge\test-pack\lift_block`,
				"class":        "/Game/MJOLNIR/Forge/test-pack/Blocks/BP_Lift.BP_Lift_C",
				"dimensions_m": []any{4, 4, 0.5},
				"lift": map[string]any{
					"offset_m": []any{0, 0, 0.45}, "size_m": []any{4, 4, 3.5}, "direction": []any{0, 0, 1},
					"acceleration_m_s2": 20, "max_speed_m_s": 4.5, "negates_gravity": true,
				},
			},
			map[string]any{
				"id":           "door_panel",
				"kind":         "panel",
				"tag":          `mjolnir\forge\test-pack\door_panel`,
				"class":        "/Game/MJOLNIR/Forge/test-pack/Panels/BP_Door.BP_Door_C",
				"dimensions_m": []any{4, 0.5, 4},
				"door":         map[string]any{"travel_m": 4, "speed_m_s": 4, "trigger_size_m": []any{8, 16, 6}, "hold_open_s": 2},
				"surfaces":     []any{map[string]any{"slot": 0, "profile": "glass_cyan"}},
			},
		},
	}
}

func piece(m map[string]any, i int) map[string]any { return m["pieces"].([]any)[i].(map[string]any) }
func lift(m map[string]any) map[string]any         { return piece(m, 0)["lift"].(map[string]any) }
func door(m map[string]any) map[string]any         { return piece(m, 1)["door"].(map[string]any) }

func num(s string) json.Number { return json.Number(s) }

func encode(t testing.TB, m map[string]any) []byte {
	t.Helper()
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestBaseIsValid(t *testing.T) {
	m, err := Decode("forgepack.json", encode(t, base()))
	if err != nil {
		t.Fatalf("Decode(base) = %v", err)
	}
	if m.Pieces[0].Lift == nil || m.Pieces[1].Door == nil || len(m.Pieces[1].Surfaces) != 1 {
		t.Fatalf("Decode(base) lost utilities: %+v", m)
	}
}

func TestFieldRules(t *testing.T) {
	long := func(n int, c string) string { return strings.Repeat(c, n) }
	list := func(n int, v func(i int) any) []any {
		out := make([]any, n)
		for i := range out {
			out[i] = v(i)
		}
		return out
	}
	// slug48 is a 48-byte pack id; pieces using it get their namespace fixed.
	slug48 := long(47, "a") + "b"
	withID := func(m map[string]any, id string) {
		m["id"] = id
		for i := range m["pieces"].([]any) {
			p := piece(m, i)
			p["tag"] = strings.Replace(p["tag"].(string), "test-pack", id, 1)
			p["class"] = strings.Replace(p["class"].(string), "test-pack", id, 1)
		}
	}
	tests := []struct {
		name     string
		mutate   func(m map[string]any)
		wantRule string // "" means valid
		wantPath string
	}{
		{"schema 1.0 not integer", func(m map[string]any) { m["schema"] = num("1.0") }, RuleInteger, "schema"},
		{"schema 1e0 not integer", func(m map[string]any) { m["schema"] = num("1e0") }, RuleInteger, "schema"},
		{"schema 2", func(m map[string]any) { m["schema"] = 2 }, RuleSchema, "schema"},
		{"schema string", func(m map[string]any) { m["schema"] = "1" }, RuleType, "schema"},
		{"schema missing", func(m map[string]any) { delete(m, "schema") }, RuleRequired, "schema"},
		{"id 3 bytes", func(m map[string]any) { withID(m, "abc") }, "", ""},
		{"id 2 bytes", func(m map[string]any) { m["id"] = "ab" }, RuleFormat, "id"},
		{"id 48 bytes", func(m map[string]any) { withID(m, slug48) }, "", ""},
		{"id 49 bytes", func(m map[string]any) { m["id"] = slug48 + "c" }, RuleFormat, "id"},
		{"id double dash", func(m map[string]any) { m["id"] = "a--b" }, RuleFormat, "id"},
		{"id leading dash", func(m map[string]any) { m["id"] = "-abc" }, RuleFormat, "id"},
		{"id trailing dash", func(m map[string]any) { m["id"] = "abc-" }, RuleFormat, "id"},
		{"id upper case", func(m map[string]any) { m["id"] = "Abc" }, RuleFormat, "id"},
		{"version prerelease build", func(m map[string]any) { m["version"] = "1.0.0-rc.1+b5" }, "", ""},
		{"version two parts", func(m map[string]any) { m["version"] = "1.4" }, RuleFormat, "version"},
		{"version leading v", func(m map[string]any) { m["version"] = "v1.4.0" }, RuleFormat, "version"},
		{"version 64 bytes", func(m map[string]any) { m["version"] = "1.4.0+" + strings.Repeat("a", 58) }, "", ""},
		{"version over 64 bytes", func(m map[string]any) { m["version"] = "1.4.0+" + strings.Repeat("a", 300) }, RuleLength, "version"},
		{"name 64 chars", func(m map[string]any) { m["name"] = long(64, "é") }, "", ""},
		{"name 65 chars", func(m map[string]any) { m["name"] = long(65, "n") }, RuleLength, "name"},
		{"name empty", func(m map[string]any) { m["name"] = "" }, RuleLength, "name"},
		{"name control char", func(m map[string]any) { m["name"] = "a\tb" }, RuleFormat, "name"},
		{"authors 16", func(m map[string]any) { m["authors"] = list(16, func(int) any { return "x" }) }, "", ""},
		{"authors 17", func(m map[string]any) { m["authors"] = list(17, func(int) any { return "x" }) }, RuleLength, "authors"},
		{"authors empty list", func(m map[string]any) { m["authors"] = []any{} }, RuleLength, "authors"},
		{"author empty name", func(m map[string]any) { m["authors"] = []any{"a", ""} }, RuleLength, "authors[1]"},
		{"author 65 chars", func(m map[string]any) { m["authors"] = []any{long(65, "a")} }, RuleLength, "authors[0]"},
		{"description 1000", func(m map[string]any) { m["description"] = long(1000, "d") }, "", ""},
		{"description 1001", func(m map[string]any) { m["description"] = long(1001, "d") }, RuleLength, "description"},
		{"description newline ok", func(m map[string]any) { m["description"] = "line\nline" }, "", ""},
		{"description omitted", func(m map[string]any) { delete(m, "description") }, "", ""},
		{"pieces empty", func(m map[string]any) { m["pieces"] = []any{} }, RuleLength, "pieces"},
		{"pieces 512", func(m map[string]any) {
			m["pieces"] = list(512, func(i int) any {
				id := "p" + strings.Repeat("x", i%40) + string(rune('a'+i%26)) + string(rune('a'+i/26))
				return map[string]any{"id": id, "kind": "block", "tag": `mjolnir\forge\test-pack\` + id,
					"class": "/Game/MJOLNIR/Forge/test-pack/" + id + "/A.A_C", "dimensions_m": []any{1, 1, 1}}
			})
		}, "", ""},
		{"pieces 513", func(m map[string]any) {
			m["pieces"] = list(513, func(i int) any { return piece(base(), 0) })
		}, RuleLength, "pieces"},
		{"piece id 48", func(m map[string]any) { piece(m, 0)["id"] = long(48, "a") }, "", ""},
		{"piece id 49", func(m map[string]any) { piece(m, 0)["id"] = long(49, "a") }, RuleFormat, "pieces[0].id"},
		{"piece id dash", func(m map[string]any) { piece(m, 0)["id"] = "a-b" }, RuleFormat, "pieces[0].id"},
		{"piece id duplicate", func(m map[string]any) { piece(m, 1)["id"] = "lift_block" }, RuleUnique, "pieces[1].id"},
		{"kind unknown", func(m map[string]any) { piece(m, 0)["kind"] = "wall" }, RuleFormat, "pieces[0].kind"},
		{"kind missing", func(m map[string]any) { delete(piece(m, 0), "kind") }, RuleRequired, "pieces[0].kind"},
		{"tag other pack", func(m map[string]any) { piece(m, 0)["tag"] = `mjolnir\forge\other-pack\x` }, RuleNamespace, "pieces[0].tag"},
		{"tag prefix only", func(m map[string]any) { piece(m, 0)["tag"] = `mjolnir\forge\test-pack` }, RuleNamespace, "pieces[0].tag"},
		{"tag dotdot", func(m map[string]any) { piece(m, 0)["tag"] = `mjolnir\forge\test-pack\..\x` }, RuleFormat, "pieces[0].tag"},
		{"tag upper", func(m map[string]any) { piece(m, 0)["tag"] = `mjolnir\forge\test-pack\X` }, RuleFormat, "pieces[0].tag"},
		{"tag double backslash", func(m map[string]any) { piece(m, 0)["tag"] = `mjolnir\forge\test-pack\\x` }, RuleFormat, "pieces[0].tag"},
		{"tag 240 bytes", func(m map[string]any) {
			piece(m, 0)["tag"] = `mjolnir\forge\test-pack\` + long(240-24, "t")
		}, "", ""},
		{"tag 241 bytes", func(m map[string]any) {
			piece(m, 0)["tag"] = `mjolnir\forge\test-pack\` + long(241-24, "t")
		}, RuleFormat, "pieces[0].tag"},
		{"tag duplicate", func(m map[string]any) { piece(m, 1)["tag"] = piece(m, 0)["tag"] }, RuleUnique, "pieces[1].tag"},
		{"class other pack", func(m map[string]any) {
			piece(m, 0)["class"] = "/Game/MJOLNIR/Forge/other-pack/A.A_C"
		}, RuleNamespace, "pieces[0].class"},
		{"class no _C", func(m map[string]any) {
			piece(m, 0)["class"] = "/Game/MJOLNIR/Forge/test-pack/A.B_C"
		}, RuleFormat, "pieces[0].class"},
		{"class space", func(m map[string]any) {
			piece(m, 0)["class"] = "/Game/MJOLNIR/Forge/test-pack/A B.A B_C"
		}, RuleFormat, "pieces[0].class"},
		{"class 200 bytes", func(m map[string]any) {
			piece(m, 0)["class"] = "/Game/MJOLNIR/Forge/test-pack/" + long(200-len("/Game/MJOLNIR/Forge/test-pack/")-len("/B.B_C"), "d") + "/B.B_C"
		}, "", ""},
		{"class 201 bytes", func(m map[string]any) {
			piece(m, 0)["class"] = "/Game/MJOLNIR/Forge/test-pack/" + long(201-len("/Game/MJOLNIR/Forge/test-pack/")-len("/B.B_C"), "d") + "/B.B_C"
		}, RuleFormat, "pieces[0].class"},
		{"class duplicate", func(m map[string]any) { piece(m, 1)["class"] = piece(m, 0)["class"] }, RuleUnique, "pieces[1].class"},
		{"dimension 0.01", func(m map[string]any) { piece(m, 0)["dimensions_m"] = []any{0.01, 1, 1} }, "", ""},
		{"dimension 0.0099", func(m map[string]any) { piece(m, 0)["dimensions_m"] = []any{0.0099, 1, 1} }, RuleRange, "pieces[0].dimensions_m[0]"},
		{"dimension 256", func(m map[string]any) { piece(m, 0)["dimensions_m"] = []any{1, 1, 256} }, "", ""},
		{"dimension 256.001", func(m map[string]any) { piece(m, 0)["dimensions_m"] = []any{1, 1, 256.001} }, RuleRange, "pieces[0].dimensions_m[2]"},
		{"dimensions two numbers", func(m map[string]any) { piece(m, 0)["dimensions_m"] = []any{1, 1} }, RuleLength, "pieces[0].dimensions_m"},
		{"dimensions string", func(m map[string]any) { piece(m, 0)["dimensions_m"] = []any{1, "1", 1} }, RuleType, "pieces[0].dimensions_m[1]"},
		{"door panel 64 m", func(m map[string]any) { piece(m, 1)["dimensions_m"] = []any{64, 0.5, 64} }, "", ""},
		{"door panel 64.001 m", func(m map[string]any) { piece(m, 1)["dimensions_m"] = []any{4, 64.001, 4} }, RuleRange, "pieces[1].dimensions_m[1]"},
		{"doorless panel 100 m", func(m map[string]any) {
			delete(piece(m, 1), "door")
			piece(m, 1)["dimensions_m"] = []any{100, 0.5, 4}
		}, "", ""},
		{"lift null", func(m map[string]any) { piece(m, 0)["lift"] = nil }, "", ""},
		{"lift omitted", func(m map[string]any) { delete(piece(m, 0), "lift") }, "", ""},
		{"lift on panel", func(m map[string]any) { piece(m, 1)["lift"] = lift(m) }, RuleKind, "pieces[1].lift"},
		{"door on block", func(m map[string]any) { piece(m, 0)["door"] = door(m) }, RuleKind, "pieces[0].door"},
		{"lift not object", func(m map[string]any) { piece(m, 0)["lift"] = true }, RuleType, "pieces[0].lift"},
		{"lift unknown key", func(m map[string]any) { lift(m)["power"] = 1 }, RuleUnknownKey, "pieces[0].lift.power"},
		{"lift missing field", func(m map[string]any) { delete(lift(m), "direction") }, RuleRequired, "pieces[0].lift.direction"},
		{"offset -100", func(m map[string]any) { lift(m)["offset_m"] = []any{-100, 100, 0} }, "", ""},
		{"offset -100.01", func(m map[string]any) { lift(m)["offset_m"] = []any{-100.01, 0, 0} }, RuleRange, "pieces[0].lift.offset_m[0]"},
		{"offset 100.01", func(m map[string]any) { lift(m)["offset_m"] = []any{0, 0, 100.01} }, RuleRange, "pieces[0].lift.offset_m[2]"},
		{"size 0.1 and 100", func(m map[string]any) { lift(m)["size_m"] = []any{0.1, 100, 1} }, "", ""},
		{"size 0.0999", func(m map[string]any) { lift(m)["size_m"] = []any{1, 0.0999, 1} }, RuleRange, "pieces[0].lift.size_m[1]"},
		{"size 100.1", func(m map[string]any) { lift(m)["size_m"] = []any{1, 1, 100.1} }, RuleRange, "pieces[0].lift.size_m[2]"},
		{"direction within tolerance", func(m map[string]any) { lift(m)["direction"] = []any{0, 0, 1.0004} }, "", ""},
		{"direction outside tolerance", func(m map[string]any) { lift(m)["direction"] = []any{0, 0, 1.0006} }, RuleUnitVector, "pieces[0].lift.direction"},
		{"direction diagonal", func(m map[string]any) { lift(m)["direction"] = []any{0, 0.6, 0.8} }, "", ""},
		{"direction zero", func(m map[string]any) { lift(m)["direction"] = []any{0, 0, 0} }, RuleUnitVector, "pieces[0].lift.direction"},
		{"acceleration 0.1", func(m map[string]any) { lift(m)["acceleration_m_s2"] = 0.1 }, "", ""},
		{"acceleration 0.09", func(m map[string]any) { lift(m)["acceleration_m_s2"] = 0.09 }, RuleRange, "pieces[0].lift.acceleration_m_s2"},
		{"acceleration 100", func(m map[string]any) { lift(m)["acceleration_m_s2"] = 100 }, "", ""},
		{"acceleration 100.5", func(m map[string]any) { lift(m)["acceleration_m_s2"] = 100.5 }, RuleRange, "pieces[0].lift.acceleration_m_s2"},
		{"max speed 30", func(m map[string]any) { lift(m)["max_speed_m_s"] = 30 }, "", ""},
		{"max speed 30.01", func(m map[string]any) { lift(m)["max_speed_m_s"] = 30.01 }, RuleRange, "pieces[0].lift.max_speed_m_s"},
		{"max speed 0.09", func(m map[string]any) { lift(m)["max_speed_m_s"] = 0.09 }, RuleRange, "pieces[0].lift.max_speed_m_s"},
		{"negates gravity 1", func(m map[string]any) { lift(m)["negates_gravity"] = 1 }, RuleType, "pieces[0].lift.negates_gravity"},
		{"negates gravity string", func(m map[string]any) { lift(m)["negates_gravity"] = "true" }, RuleType, "pieces[0].lift.negates_gravity"},
		{"travel 16", func(m map[string]any) { door(m)["travel_m"] = 16 }, "", ""},
		{"travel 16.01", func(m map[string]any) { door(m)["travel_m"] = 16.01 }, RuleRange, "pieces[1].door.travel_m"},
		{"travel 0", func(m map[string]any) { door(m)["travel_m"] = 0 }, RuleRange, "pieces[1].door.travel_m"},
		{"speed 8", func(m map[string]any) { door(m)["speed_m_s"] = 8 }, "", ""},
		{"speed 8.001", func(m map[string]any) { door(m)["speed_m_s"] = 8.001 }, RuleRange, "pieces[1].door.speed_m_s"},
		{"speed tiny", func(m map[string]any) { door(m)["speed_m_s"] = 0.0001 }, "", ""},
		{"speed negative", func(m map[string]any) { door(m)["speed_m_s"] = -1 }, RuleRange, "pieces[1].door.speed_m_s"},
		{"trigger 32", func(m map[string]any) { door(m)["trigger_size_m"] = []any{32, 32, 32} }, "", ""},
		{"trigger 32.5", func(m map[string]any) { door(m)["trigger_size_m"] = []any{32.5, 1, 1} }, RuleRange, "pieces[1].door.trigger_size_m[0]"},
		{"trigger 0", func(m map[string]any) { door(m)["trigger_size_m"] = []any{1, 1, 0} }, RuleRange, "pieces[1].door.trigger_size_m[2]"},
		{"hold 0", func(m map[string]any) { door(m)["hold_open_s"] = 0 }, "", ""},
		{"hold 10", func(m map[string]any) { door(m)["hold_open_s"] = 10 }, "", ""},
		{"hold 10.01", func(m map[string]any) { door(m)["hold_open_s"] = 10.01 }, RuleRange, "pieces[1].door.hold_open_s"},
		{"hold -0.01", func(m map[string]any) { door(m)["hold_open_s"] = -0.01 }, RuleRange, "pieces[1].door.hold_open_s"},
		{"door unknown key", func(m map[string]any) { door(m)["sound"] = "x" }, RuleUnknownKey, "pieces[1].door.sound"},
		{"door missing hold", func(m map[string]any) { delete(door(m), "hold_open_s") }, RuleRequired, "pieces[1].door.hold_open_s"},
		{"surfaces 16", func(m map[string]any) {
			piece(m, 1)["surfaces"] = list(16, func(i int) any { return map[string]any{"slot": i, "profile": "glass_cyan"} })
		}, "", ""},
		{"surfaces 17", func(m map[string]any) {
			piece(m, 1)["surfaces"] = list(17, func(i int) any { return map[string]any{"slot": i % 16, "profile": "glass_cyan"} })
		}, RuleLength, "pieces[1].surfaces"},
		{"surfaces empty", func(m map[string]any) { piece(m, 1)["surfaces"] = []any{} }, "", ""},
		{"surfaces null", func(m map[string]any) { piece(m, 1)["surfaces"] = nil }, "", ""},
		{"surface slot 15", func(m map[string]any) {
			piece(m, 1)["surfaces"] = []any{map[string]any{"slot": 15, "profile": "teleporter_green"}}
		}, "", ""},
		{"surface slot 16", func(m map[string]any) {
			piece(m, 1)["surfaces"] = []any{map[string]any{"slot": 16, "profile": "glass_cyan"}}
		}, RuleRange, "pieces[1].surfaces[0].slot"},
		{"surface slot -1", func(m map[string]any) {
			piece(m, 1)["surfaces"] = []any{map[string]any{"slot": -1, "profile": "glass_cyan"}}
		}, RuleRange, "pieces[1].surfaces[0].slot"},
		{"surface slot 1.5", func(m map[string]any) {
			piece(m, 1)["surfaces"] = []any{map[string]any{"slot": 1.5, "profile": "glass_cyan"}}
		}, RuleInteger, "pieces[1].surfaces[0].slot"},
		{"surface slot 1e0", func(m map[string]any) {
			piece(m, 1)["surfaces"] = []any{map[string]any{"slot": num("1e0"), "profile": "glass_cyan"}}
		}, RuleInteger, "pieces[1].surfaces[0].slot"},
		{"surface slot repeated", func(m map[string]any) {
			piece(m, 1)["surfaces"] = []any{map[string]any{"slot": 3, "profile": "glass_cyan"}, map[string]any{"slot": 3, "profile": "teleporter_green"}}
		}, RuleUnique, "pieces[1].surfaces[1].slot"},
		{"surface material path", func(m map[string]any) {
			piece(m, 1)["surfaces"] = []any{map[string]any{"slot": 0, "profile": "/Game/Materials/M_Glass"}}
		}, RuleProfile, "pieces[1].surfaces[0].profile"},
		{"surface extra key", func(m map[string]any) {
			piece(m, 1)["surfaces"] = []any{map[string]any{"slot": 0, "profile": "glass_cyan", "shader": "x"}}
		}, RuleUnknownKey, "pieces[1].surfaces[0].shader"},
		{"surface missing profile", func(m map[string]any) { piece(m, 1)["surfaces"] = []any{map[string]any{"slot": 0}} }, RuleRequired, "pieces[1].surfaces[0].profile"},
		{"surfaces on block", func(m map[string]any) {
			piece(m, 0)["surfaces"] = []any{map[string]any{"slot": 2, "profile": "teleporter_green"}}
		}, "", ""},
		{"unknown top key", func(m map[string]any) { m["homepage"] = "x" }, RuleUnknownKey, "homepage"},
		{"unknown piece key", func(m map[string]any) { piece(m, 0)["script"] = "x.lua" }, RuleUnknownKey, "pieces[0].script"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := base()
			tt.mutate(m)
			data := encode(t, m)
			_, err := Decode("forgepack.json", data)
			if tt.wantRule == "" {
				if err != nil {
					t.Fatalf("Decode = %v; want valid", err)
				}
				return
			}
			var me *ManifestError
			if !errors.As(err, &me) {
				t.Fatalf("Decode = %v; want *ManifestError with rule %s at %s", err, tt.wantRule, tt.wantPath)
			}
			for _, fe := range me.Errors {
				if fe.Rule == tt.wantRule && fe.Path == tt.wantPath {
					if fe.Line < 1 || fe.Column < 1 || fe.Message == "" {
						t.Errorf("error lacks position or message: %+v", fe)
					}
					return
				}
			}
			t.Fatalf("Decode errors = %v; want rule %s at %s", err, tt.wantRule, tt.wantPath)
		})
	}
}

// TestOverflowNamesPath checks that a number too large for a float64 is
// reported with its JSON path, and that the rest of the manifest is still
// validated.
func TestOverflowNamesPath(t *testing.T) {
	m := base()
	m["schema"] = num("-2e308")
	door(m)["hold_open_s"] = num("1e400")
	lift(m)["size_m"] = []any{num("1e999"), 4, 3.5}
	door(m)["travel_m"] = num("16.5")
	data := encode(t, m)
	_, err := Decode("forgepack.json", data)
	var me *ManifestError
	if !errors.As(err, &me) {
		t.Fatalf("Decode = %v; want a *ManifestError", err)
	}
	want := map[string]string{
		"schema":                     "schema: number does not fit a float64, got -2e308",
		"pieces[0].lift.size_m[0]":   "pieces[0].lift.size_m[0]: number does not fit a float64, got 1e999",
		"pieces[1].door.hold_open_s": "pieces[1].door.hold_open_s: number does not fit a float64, got 1e400",
		"pieces[1].door.travel_m":    "pieces[1].door.travel_m: must be > 0 and ≤ 16, got 16.5",
	}
	if len(me.Errors) != len(want) {
		t.Fatalf("Decode = %v; want %d errors", err, len(want))
	}
	for _, fe := range me.Errors {
		line, col := lineCol(data, strings.Index(string(data), fe.Value))
		got := fmt.Sprintf("%s: %s, got %s", fe.Path, fe.Message, fe.Value)
		if got != want[fe.Path] || fe.Line != line || fe.Column != col {
			t.Errorf("error at %s = %q at %d:%d; want %q at %d:%d", fe.Path, got, fe.Line, fe.Column, want[fe.Path], line, col)
		}
		if fe.Value != "16.5" && fe.Rule != RuleOverflow {
			t.Errorf("error at %s has rule %s; want %s", fe.Path, fe.Rule, RuleOverflow)
		}
	}
}

// lineCol is the 1-based line and column of offset off in data.
func lineCol(data []byte, off int) (int, int) {
	line, col := 1, 1
	for _, c := range data[:off] {
		if c == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return line, col
}

func TestDocumentRules(t *testing.T) {
	valid := encode(t, base())
	deep := `{"schema":1,"id":"abc","x":` + strings.Repeat("[", 16) + strings.Repeat("]", 16) + "}"
	tests := []struct {
		name     string
		data     []byte
		wantRule string
		line     int
		col      int
	}{
		{"bom", append([]byte{0xEF, 0xBB, 0xBF}, valid...), RuleEncoding, 1, 1},
		{"trailing data", append(append([]byte{}, valid...), []byte("\n{}")...), RuleTrailingData, 0, 1},
		{"trailing comma", []byte(`{"schema":1,}`), RuleSyntax, 1, 12},
		{"too large", append(append([]byte{}, valid...), make([]byte, MaxManifestBytes)...), RuleTooLarge, 1, 1},
		{"depth 17", []byte(deep), RuleDepth, 1, 43},
		{"invalid utf-8", []byte("{\"name\": \"a\xffb\"}"), RuleEncoding, 1, 12},
		{"lone surrogate", []byte(`{"name": "\ud800x"}`), RuleSyntax, 1, 11},
		{"empty", []byte(""), RuleSyntax, 1, 1},
		{"not an object", []byte(`[1]`), RuleType, 1, 1},
		{"unquoted key", []byte("{\n  schema: 1}"), RuleSyntax, 2, 3},
		{"NaN", []byte(`{"schema": NaN}`), RuleSyntax, 1, 12},
		{"leading zero", []byte(`{"schema": 01}`), RuleTrailingData, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Decode("forgepack.json", tt.data)
			var me *ManifestError
			if !errors.As(err, &me) {
				t.Fatalf("Decode = %v; want a *ManifestError", err)
			}
			fe := me.Errors[0]
			if tt.name == "leading zero" {
				// "01": the number ends after 0, so the '1' is a syntax fault.
				if fe.Rule != RuleSyntax {
					t.Fatalf("Decode(%q) rule = %s; want syntax", tt.data, fe.Rule)
				}
				return
			}
			if fe.Rule != tt.wantRule {
				t.Fatalf("Decode rule = %s (%v); want %s", fe.Rule, err, tt.wantRule)
			}
			if tt.line != 0 && (fe.Line != tt.line || fe.Column != tt.col) {
				t.Errorf("Decode position = %d:%d; want %d:%d (%v)", fe.Line, fe.Column, tt.line, tt.col, err)
			}
		})
	}
	// Depth 16 is allowed (it fails only on the unknown key, not on depth).
	ok16 := `{"x":` + strings.Repeat("[", 15) + strings.Repeat("]", 15) + "}"
	_, err := Decode("f", []byte(ok16))
	if err == nil || strings.Contains(err.Error(), "nesting") {
		t.Errorf("Decode(depth 16) = %v; want no depth error", err)
	}
}

func TestDuplicateKeys(t *testing.T) {
	data := []byte("{\n  \"schema\": 1,\n  \"schema\": 2\n}")
	_, err := Decode("forgepack.json", data)
	var me *ManifestError
	if !errors.As(err, &me) {
		t.Fatalf("Decode = %v", err)
	}
	fe := me.Errors[0]
	if fe.Rule != RuleDuplicateKey || fe.Path != "schema" || fe.Line != 3 || fe.Column != 3 {
		t.Fatalf("first error = %+v; want duplicate-key at schema 3:3", fe)
	}
	// Many keys switch duplicate detection to a set; it must still find them.
	var b strings.Builder
	b.WriteString("{")
	for i := range 40 {
		b.WriteString(`"k` + strings.Repeat("x", i) + `":1,`)
	}
	b.WriteString(`"kxxx":2}`)
	_, err = Decode("f", []byte(b.String()))
	if err == nil || !strings.Contains(err.Error(), `duplicate key "kxxx"`) {
		t.Fatalf("Decode(41 keys) = %v; want duplicate kxxx", err)
	}
}

// TestPositions pins line, column and message of faults in a hand-written file.
func TestPositions(t *testing.T) {
	data := []byte(`{
  "schema": 1,
  "id": "pos-test",
  "version": "1.0.0",
  "name": "Positions",
  "authors": ["Ünïcode Author"],
  "pieces": [
    { "id": "a", "kind": "panel", "tag": "mjolnir\\forge\\pos-test\\a",
      "class": "/Game/MJOLNIR/Forge/pos-test/A.A_C", "dimensions_m": [1, 1, 1],
      "door": { "travel_m": 17, "speed_m_s": 4, "trigger_size_m": [8, 16, 6], "hold_open_s": 2 } },
    { "id": "b", "kind": "block", "tag": "mjolnir\\forge\\pos-test\\b", "class": "/Game/MJOLNIR/Forge/pos-test/B.B_C",
      "dimensions_m": [1, 1, 1], "lift": { "offset_m": [0, 0, 0], "size_m": [1, 1, 1], "direction": [0, 0, 1],
      "acceleration_m_s2": 1, "max_speed_m_s": 1, "negates_gravity": 0 } }
  ]
}`)
	_, err := Decode("forgepack.json", data)
	want := "forgepack.json:10:29: pieces[0].door.travel_m: must be > 0 and ≤ 16, got 17\n" +
		"forgepack.json:13:70: pieces[1].lift.negates_gravity: must be true or false, got 0"
	if err == nil || err.Error() != want {
		t.Fatalf("Decode error =\n%v\nwant\n%s", err, want)
	}
	if !errors.Is(err, errInvalid) {
		t.Errorf("errors.Is(err, ErrInvalid) = false")
	}
}

func TestReportsEveryFault(t *testing.T) {
	m := base()
	m["schema"] = 3
	m["id"] = "x"
	m["version"] = "one"
	m["extra"] = true
	lift(m)["size_m"] = []any{0, 200, 1}
	lift(m)["negates_gravity"] = "yes"
	door(m)["travel_m"] = 40
	door(m)["hold_open_s"] = 11
	piece(m, 1)["surfaces"] = []any{map[string]any{"slot": 20, "profile": "gold"}}
	_, err := Decode("forgepack.json", encode(t, m))
	var me *ManifestError
	if !errors.As(err, &me) {
		t.Fatalf("Decode = %v", err)
	}
	want := []string{"schema", "id", "version", "extra", "pieces[0].lift.size_m[0]", "pieces[0].lift.size_m[1]",
		"pieces[0].lift.negates_gravity", "pieces[1].door.travel_m", "pieces[1].door.hold_open_s",
		"pieces[1].surfaces[0].slot", "pieces[1].surfaces[0].profile"}
	got := map[string]bool{}
	for _, fe := range me.Errors {
		got[fe.Path] = true
	}
	for _, p := range want {
		if !got[p] {
			t.Errorf("no error reported at %s; got:\n%v", p, err)
		}
	}
	if len(me.Errors) != len(want) {
		t.Errorf("got %d errors; want %d:\n%v", len(me.Errors), len(want), err)
	}
}

// TestNullUtilities checks that old packs' null and omitted utilities and
// [] surfaces all decode as none.
func TestNullUtilities(t *testing.T) {
	m := base()
	piece(m, 0)["lift"] = nil
	piece(m, 1)["surfaces"] = []any{}
	delete(piece(m, 1), "door")
	got, err := Decode("forgepack.json", encode(t, m))
	if err != nil {
		t.Fatal(err)
	}
	for i, pc := range got.Pieces[:2] {
		if pc.Lift != nil || pc.Door != nil || pc.Surfaces != nil {
			t.Errorf("piece %d = %+v; want no utilities", i, pc)
		}
	}
}

func TestExamplePacksValid(t *testing.T) {
	dirs, _ := filepath.Glob("../cmd/forgesync/examples/*/forgepack.json")
	shared, _ := filepath.Glob("../../shared/testdata/companions/*/forgepack.json")
	if len(dirs) < 3 {
		t.Fatalf("found %d example packs; want at least 3", len(dirs))
	}
	for _, p := range append(dirs, shared...) {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		m, err := Decode(p, data)
		if err != nil {
			t.Errorf("example %s is invalid:\n%v", p, err)
			continue
		}
		if m.ID == "" {
			t.Errorf("example %s decoded without an id", p)
		}
	}
}

func TestRequiredPackages(t *testing.T) {
	m, err := Decode("f", encode(t, base()))
	if err != nil {
		t.Fatal(err)
	}
	got := m.RequiredPackages()
	if len(got) != 1 || got[0] != "/Game/MJOLNIR/Forge/test-pack/Surfaces/MI_GlassCyan" {
		t.Fatalf("RequiredPackages() = %v", got)
	}
}

// TestManifestErrorReasons: each fault is a rejection reason that names
// the file as Decode was told it, so every layer passes it on as it is.
func TestManifestErrorReasons(t *testing.T) {
	_, err := Decode("top/forgepack.json", []byte(`{"schema": 2, "extra": true}`))
	var me *ManifestError
	if !errors.As(err, &me) || len(me.Errors) < 2 {
		t.Fatalf("Decode = %v; want a *ManifestError with the schema and the extra key", err)
	}
	for _, r := range me.Errors {
		if r.File != "top/forgepack.json" || r.Line != 1 || r.Rule == "" || r.Message == "" {
			t.Errorf("reason %+v; want the file named top/forgepack.json, a line, a rule and a message", r)
		}
	}
	if r := me.Errors[0]; r.Rule != RuleUnknownKey || r.Path != "extra" || r.Column != 15 {
		t.Errorf("first reason %+v; want the unknown key at 1:15", r)
	}
}
