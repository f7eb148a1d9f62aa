package lock

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"

	"github.com/mjolnir-forge/forgesync/sets/settest"
)

// problemsOf returns each problem of err as "KEY: MESSAGE", sorted.
func problemsOf(t *testing.T, err error) []string {
	t.Helper()
	var le *lockError
	if !errors.As(err, &le) {
		t.Fatalf("error %v is not a *LockError", err)
	}
	var out []string
	for _, p := range le.Problems {
		out = append(out, p.Key+": "+p.Message)
	}
	slices.Sort(out)
	return out
}

// asJSON returns the TOML lock text as the same document in JSON.
func asJSON(t *testing.T, text string) []byte {
	t.Helper()
	var root map[string]any
	if _, err := toml.Decode(text, &root); err != nil {
		t.Fatalf("toml.Decode(%q) = %v", text, err)
	}
	data, err := json.Marshal(root)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestDecodeJSONSameRules: a lock in JSON is refused for what the same
// lock in TOML is refused for, with the same keys and messages.
func TestDecodeJSONSameRules(t *testing.T) {
	for _, tc := range []struct{ name, text string }{
		{"good", settest.GoodLock},
		{"unknown top key", settest.Edit(t, "version = 1\n", "version = 1\ncolour = \"red\"\n")},
		{"unknown pack key", settest.Edit(t, "size = 42", "size = 42\nname = \"A\"")},
		{"format", settest.Edit(t, `format = "forgepacks-lock"`, `format = "packwiz"`)},
		{"format missing", strings.Replace(settest.GoodLock, "format = \"forgepacks-lock\"\n", "", 1)},
		{"version", settest.Edit(t, "version = 1\n", "version = 2\n")},
		{"version string", settest.Edit(t, "version = 1\n", "version = \"1\"\n")},
		{"bad id", settest.Edit(t, `id = "alpha-pack"`, `id = "Alpha_Pack"`)},
		{"size string", settest.Edit(t, "size = 42", `size = "42"`)},
		{"size over limit", settest.Edit(t, "size = 42", "size = 5000000000")},
		{"urls not a list", settest.Edit(t, `urls = ["file:///srv/forge/a.zip"]`, `urls = "a.zip"`)},
		{"url not a string", settest.Edit(t, `urls = ["file:///srv/forge/a.zip"]`, `urls = [3]`)},
		{"no urls", settest.Edit(t, `urls = ["file:///srv/forge/a.zip"]`, `urls = []`)},
		{"name not a string", settest.Edit(t, `name = "Foundry League, season 3"`, `name = true`)},
		{"wrong fingerprint", settest.Edit(t, settest.FpAB, "sha256:"+settest.HashC)},
		{"pack not a table", "format = \"forgepacks-lock\"\nversion = 1\npack = 3\n"},
		{"pack list of values", "format = \"forgepacks-lock\"\nversion = 1\npack = [1, 2]\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := asJSON(t, tc.text)
			fromTOML, terr := Decode("set.lock", []byte(tc.text), DecodeOptions{})
			fromJSON, jerr := DecodeJSON("set.lock", body, DecodeOptions{})
			if (terr == nil) != (jerr == nil) {
				t.Fatalf("Decode = %v; DecodeJSON(%s) = %v; want both to agree", terr, body, jerr)
			}
			if terr == nil {
				if fromTOML.Fingerprint() != fromJSON.Fingerprint() || fromTOML.Name != fromJSON.Name || len(fromJSON.Packs) != len(fromTOML.Packs) {
					t.Errorf("DecodeJSON(%s) = %+v; want %+v", body, fromJSON, fromTOML)
				}
				return
			}
			if got, want := problemsOf(t, jerr), problemsOf(t, terr); !slices.Equal(got, want) {
				t.Errorf("DecodeJSON(%s) problems\n%q\nwant the TOML's\n%q", body, got, want)
			}
		})
	}
}

// TestDecodeJSONRefused: what only JSON can get wrong is refused, saying
// what.
func TestDecodeJSONRefused(t *testing.T) {
	good := string(asJSON(t, settest.GoodLock))
	for _, tc := range []struct{ name, body, want string }{
		{"float size", `{"format":"forgepacks-lock","version":1,"pack":[{"id":"alpha-pack","version":"1.0.0","sha256":"` + settest.HashA + `","size":42.5,"urls":["a.zip"]}]}`, "pack[0].size: must be an integer number of bytes, found 42.5 (a float)"},
		{"duplicate id", string(asJSON(t, settest.Edit(t, `id = "alpha-pack"`, `id = "zeta-pack"`))), `pack[1].id: "zeta-pack" is pinned twice (first at pack[0])`},
		{"duplicate archive", string(asJSON(t, settest.Edit(t, "sha256 = \""+settest.HashA, "sha256 = \""+settest.HashB))), `pack[1].sha256: the same archive is pinned as "zeta-pack" at pack[0]`},
		{"duplicate id after a bad pack", `{"format":"forgepacks-lock","version":1,"pack":[` +
			`{"id":"Bad","version":"1.0.0","sha256":"` + settest.HashA + `","size":1,"urls":["a.zip"]},` +
			`{"id":"twice-pack","version":"1.0.0","sha256":"` + settest.HashB + `","size":1,"urls":["b.zip"]},` +
			`{"id":"twice-pack","version":"1.0.0","sha256":"` + settest.HashC + `","size":1,"urls":["c.zip"]}]}`, `pack[2].id: "twice-pack" is pinned twice (first at pack[1])`},
		{"null", `{"format":null,"version":1}`, "format: null is not a value of a lock"},
		{"huge number", `{"format":"forgepacks-lock","version":1.5e400}`, "version: the number 1.5e400 is out of range"},
		{"trailing data", good + ` {}`, "data after the object"},
		{"duplicate key", `{"format":"forgepacks-lock","version":1,"version":2}`, `duplicate key "version" at version`},
		{"duplicate pack key", `{"format":"forgepacks-lock","version":1,"pack":[{"id":"a","id":"b"}]}`, `duplicate key "id" at pack[0].id`},
		{"not an object", `[1]`, "a lock in JSON is an object, found a list"},
		{"syntax", "{\"format\":\n\"forgepacks-lock\",,}", "set.lock:2: not a lock in JSON: invalid character ','"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := DecodeJSON("set.lock", []byte(tc.body), DecodeOptions{})
			if !errors.Is(err, errInvalidLock) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("DecodeJSON(%s) = %v; want %q", tc.body, err, tc.want)
			}
		})
	}
}
