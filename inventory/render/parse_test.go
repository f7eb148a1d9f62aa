package render

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/mjolnir-forge/forgesync/inventory"
	"github.com/mjolnir-forge/forgesync/inventory/render/rendertest"
)

// companionJSON returns installed.json for the two companion packs,
// lockout-gates disabled.
func companionJSON(t testing.TB) string {
	t.Helper()
	packs := load(t, "testdata/companions/foundry-wide/forgepack.json", "testdata/companions/lockout-gates/forgepack.json")
	packs[1].Enabled = false
	data, err := InstalledJSON(packs)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// at returns "LINE:COL" of the n-th (0-based) occurrence of sub in doc,
// plus skip bytes, as a 1-based line and character column.
func at(doc, sub string, n, skip int) string {
	off := -1
	for range n + 1 {
		i := strings.Index(doc[off+1:], sub)
		if i < 0 {
			return "not found"
		}
		off += 1 + i
	}
	off += skip
	line, col := position([]byte(doc), off)
	return fmt.Sprintf("%d:%d", line, col)
}

func TestParseInstalledRejects(t *testing.T) {
	good := companionJSON(t)
	if _, err := ParseInstalled([]byte(good)); err != nil {
		t.Fatalf("ParseInstalled(rendered) = %v", err)
	}
	replace := func(old, new string) func(string) string {
		return func(s string) string {
			if !strings.Contains(s, old) {
				t.Fatalf("test bug: %q not in installed.json", old)
			}
			return strings.Replace(s, old, new, 1)
		}
	}
	for _, tc := range []struct {
		name   string
		mutate func(string) string
		says   []string // substrings of the error, in any order
		at     []any    // when set: sub, n, skip for at() on the mutated doc
	}{
		{"empty", func(string) string { return "" }, []string{"1:1", "unexpected end of file"}, nil},
		{"not an object", func(string) string { return "[]" }, []string{"1:1", "must be an object"}, nil},
		{"BOM", func(s string) string { return "\xEF\xBB\xBF" + s }, []string{"1:1", "byte order mark"}, nil},
		{"trailing data", func(s string) string { return s + "{}" }, []string{"trailing data"}, nil},
		{"cut short", func(s string) string { return s[:len(s)/2] }, []string{"unexpected end of file"}, nil},
		{"unknown top key", replace(`"version": 1,`, `"version": 1, "extra": 2,`), []string{`extra: unknown key "extra"`}, []any{`"extra"`, 0, 0}},
		{"duplicate top key", replace(`"version": 1,`, `"version": 1, "format": "forge-installed",`), []string{`duplicate key "format"`}, []any{`"format"`, 1, 0}},
		{"missing packs", func(string) string { return `{"format":"forge-installed","version":1}` }, []string{"packs: is required"}, nil},
		{"wrong format", replace(`"forge-installed"`, `"forge-inventory"`), []string{`must be "forge-installed"`}, []any{`"forge-inventory"`, 0, 0}},
		{"version 2", replace(`"version": 1,`, `"version": 2,`), []string{"must be 1"}, []any{`"version": 2`, 0, 11}},
		{"version 1.0", replace(`"version": 1,`, `"version": 1.0,`), []string{"must be 1", "1.0"}, []any{`"version": 1.0`, 0, 11}},
		{"packs null", replace(`"packs": [`, `"packs": null, "x": [`), []string{"packs: must be a list"}, nil},
		{"pack not object", replace(`"packs": [`, `"packs": [ 7,`), []string{"packs[0]: must be an object"}, nil},
		{"enabled missing", replace(`"enabled": true,`, ``), []string{"packs[0].enabled: is required"}, nil},
		{"enabled number", replace(`"enabled": true,`, `"enabled": 1,`), []string{"packs[0].enabled: must be true or false"}, []any{`"enabled": 1`, 0, 11}},
		{"enabled twice", replace(`"enabled": true,`, `"enabled": true, "enabled": false,`), []string{`packs[0].enabled: duplicate key`}, []any{`"enabled"`, 1, 0}},
		{"schema in pack", replace(`"enabled": true,`, `"enabled": true, "schema": 1,`), []string{"packs[0].schema: unknown key"}, nil},
		{"hash upper case", replace(`"archive_sha256": "9f86`, `"archive_sha256": "9F86`), []string{"packs[0].archive_sha256: must be 64 lower-case hex digits"}, nil},
		{"hash missing", func(s string) string {
			i := strings.Index(s, `"archive_sha256"`)
			j := strings.Index(s[i:], "\n")
			return s[:i] + s[i+j+1:]
		}, []string{"packs[0].archive_sha256: is required"}, nil},
		{"unknown pack key", replace(`"enabled": true,`, `"enabled": true, "colour": "red",`), []string{"packs[0].colour", `unknown key "colour"`}, nil},
		{"manifest range", replace(`"travel_m": 6`, `"travel_m": 17`), []string{at(good, `"travel_m": 6`, 0, 12), "packs[1].pieces[1].door.travel_m", "17", `pack "lockout-gates" fails manifest validation`}, nil},
		{"manifest type", replace(`"negates_gravity": true`, `"negates_gravity": "yes"`), []string{at(good, `"negates_gravity": true`, 0, 19), "packs[0].pieces[0].lift.negates_gravity"}, nil},
		{"manifest short vector", replace("\"dimensions_m\": [\n            4,\n", "\"dimensions_m\": [\n"), []string{"packs[0].pieces[0].dimensions_m"}, nil},
		{"manifest duplicate key", replace(`"kind": "block",`, `"kind": "block", "kind": "block",`), []string{"packs[0].pieces[0].kind", "duplicate"}, nil},
		{"manifest unknown key", replace(`"kind": "block",`, `"kind": "block", "colour": 1,`), []string{"packs[0].pieces[0].colour"}, nil},
		{"namespace", replace(`mjolnir\\forge\\lockout-gates\\gate_vehicle`, `mjolnir\\forge\\foundry-wide\\gate_vehicle`), []string{"packs[1].pieces[1].tag"}, nil},
		{"unsorted", func(s string) string { return strings.ReplaceAll(s, "foundry-wide", "zzz-wide") },
			[]string{"packs[1].id", `sorted by id without repeats; "lockout-gates" follows "zzz-wide"`}, nil},
		{"same id twice", func(s string) string { return strings.ReplaceAll(s, "foundry-wide", "lockout-gates") },
			[]string{"packs[1].id", `sorted by id without repeats; "lockout-gates" follows "lockout-gates"`}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc := tc.mutate(good)
			packs, err := ParseInstalled([]byte(doc))
			if err == nil {
				t.Fatalf("ParseInstalled = %d packs, nil; want an error", len(packs))
			}
			if !errors.Is(err, ErrMalformed) {
				t.Errorf("ParseInstalled error %v is not ErrMalformed", err)
			}
			says := tc.says
			if tc.at != nil {
				says = append(says, at(doc, tc.at[0].(string), tc.at[1].(int), tc.at[2].(int)))
			}
			for _, s := range says {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("ParseInstalled error does not say %q:\n%v", s, err)
				}
			}
		})
	}
}

func TestParseInstalledManifestErrorParts(t *testing.T) {
	good := companionJSON(t)
	doc := strings.Replace(good, `"hold_open_s": 2`, `"hold_open_s": 11`, 1)
	_, err := ParseInstalled([]byte(doc))
	var me *inventory.ManifestError
	if !errors.As(err, &me) || !errors.Is(err, inventory.ErrInvalid) {
		t.Fatalf("ParseInstalled = %v; want an *inventory.ManifestError inside", err)
	}
	if len(me.Errors) != 1 {
		t.Fatalf("%d faults; want 1: %v", len(me.Errors), me)
	}
	fe := me.Errors[0]
	want := at(good, `"hold_open_s": 2`, 0, 15)
	if got := fmt.Sprintf("%d:%d", fe.Line, fe.Column); got != want || fe.Path != "packs[1].pieces[0].door.hold_open_s" || fe.Value != "11" || fe.Rule != inventory.RuleRange {
		t.Errorf("fault = %s %s %s %q; want %s packs[1].pieces[0].door.hold_open_s range \"11\"", got, fe.Path, fe.Rule, fe.Value, want)
	}
}

// TestParseInstalledReformatted accepts the same document written another
// way (minified, keys reordered), and renders it back canonically.
func TestParseInstalledReformatted(t *testing.T) {
	good := companionJSON(t)
	var min bytes.Buffer
	if err := compact(&min, good); err != nil {
		t.Fatal(err)
	}
	moved := strings.Replace(min.String(), `"enabled":true,`, ``, 1)
	moved = strings.Replace(moved, `"pieces":[`, `"enabled":true,"pieces":[`, 1)
	escaped := strings.Replace(good, `"enabled"`, `"en\u0061bled"`, 1)
	escaped = strings.Replace(escaped, `"archive_sha256"`, `"archive_sha\u0032\u00356"`, 1)
	for name, doc := range map[string]string{"minified": min.String(), "keys moved": moved, "keys escaped": escaped} {
		packs, err := ParseInstalled([]byte(doc))
		if err != nil {
			t.Fatalf("%s: ParseInstalled = %v", name, err)
		}
		again, err := InstalledJSON(packs)
		if err != nil || string(again) != good {
			t.Errorf("%s: rendered back = %v, differs: %s", name, err, diff(again, []byte(good)))
		}
	}
}

// TestParseInstalledLargePack reads a pack whose indented form outgrows the
// 1 MiB manifest limit although its forgepack.json did not.
func TestParseInstalledLargePack(t *testing.T) {
	m := &inventory.Manifest{Schema: 1, ID: "big-pack", Version: "1.0.0", Name: "Big", Authors: []string{"B"}}
	for i := range inventory.MaxPieces {
		pc := piece("big-pack", fmt.Sprintf("piece_with_a_long_name_for_the_limit_test_%03d", i), inventory.KindBlock, fmt.Sprintf("BP_PieceWithAVeryLongAssetNameForTheLimitTest%03d", i))
		for s := range inventory.MaxSurfaces {
			pc.Surfaces = append(pc.Surfaces, inventory.Surface{Slot: s, Profile: inventory.ProfileTeleporterGreen})
		}
		m.Pieces = append(m.Pieces, pc)
	}
	packs := []inventory.InstalledPack{{Manifest: m, Enabled: true, ArchiveSHA256: sha}}
	data, err := InstalledJSON(packs)
	if err != nil {
		t.Fatal(err)
	}
	if len(data) <= inventory.MaxManifestBytes {
		t.Fatalf("test bug: installed.json is %d bytes, not over the manifest limit", len(data))
	}
	got, err := ParseInstalled(data)
	if err != nil {
		t.Fatalf("ParseInstalled(%d bytes) = %v", len(data), err)
	}
	if !reflect.DeepEqual(got, packs) {
		t.Errorf("large pack read back differently")
	}
}

// TestParseInstalledTooManyDoors rejects a file whose enabled packs hold
// more doors than the runtime takes: it could not be rendered back.
func TestParseInstalledTooManyDoors(t *testing.T) {
	packs := rendertest.Packs(200) // exactly 256 doors
	extra := pack(t, "zz-one-more", withDoor(piece("zz-one-more", "gate", inventory.KindPanel, "BP_Gate")))
	extra.Enabled = false
	data, err := InstalledJSON(append(packs, extra))
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.LastIndex(data, []byte(`"enabled": false`))
	doc := string(data[:i]) + `"enabled": true ` + string(data[i+len(`"enabled": false`):])
	_, err = ParseInstalled([]byte(doc))
	if !errors.Is(err, ErrMalformed) || !errors.Is(err, ErrTooManyDoors) || !strings.Contains(err.Error(), "zz-one-more (1)") {
		t.Errorf("ParseInstalled(257 enabled doors) = %v; want ErrMalformed and ErrTooManyDoors naming zz-one-more", err)
	}
}

// FuzzParseInstalled: never panic; every rejection is ErrMalformed; anything
// accepted renders, and reads back to the same packs and the same bytes.
func FuzzParseInstalled(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/golden/*/installed.json")
	for _, p := range seeds {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	small, err := InstalledJSON(rendertest.Packs(2))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(small)
	f.Add([]byte(`{"format":"forge-installed","version":1,"packs":[]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		packs, err := ParseInstalled(data)
		if err != nil {
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("error %v is not ErrMalformed", err)
			}
			return
		}
		first, err := Files(packs)
		if err != nil {
			t.Fatalf("accepted installed.json does not render: %v", err)
		}
		again, err := ParseInstalled(first[0].Data)
		if err != nil {
			t.Fatalf("rendered installed.json is rejected: %v\n%s", err, first[0].Data)
		}
		if !reflect.DeepEqual(again, packs) {
			t.Fatalf("read back differently:\n%+v\n%+v", packs, again)
		}
		second, err := Files(again)
		if err != nil {
			t.Fatal(err)
		}
		for i := range first {
			if !bytes.Equal(first[i].Data, second[i].Data) {
				t.Fatalf("%s not stable: %s", first[i].Name, diff(second[i].Data, first[i].Data))
			}
		}
	})
}

func compact(dst *bytes.Buffer, s string) error { return jsonCompact(dst, []byte(s)) }

var jsonCompact = json.Compact
