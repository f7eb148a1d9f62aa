package inventory_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/mjolnir-forge/forgesync/inventory"
	"github.com/mjolnir-forge/forgesync/inventory/rejection"
)

// crossField lists what `forgesync scan` refuses and the schema cannot
// say: rules that span fields or need a back-reference, and rules about the
// JSON text itself, which a schema sees only after parsing. A manifest the
// schema accepts and scan rejects is an agreement only when every fault scan
// reports is one of these.
var crossField = []struct {
	rule, message string // message: a substring of FieldError.Message, or "" for any
	why           string
}{
	{inventory.RuleNamespace, "", "tags and classes live under the pack's own id (another field)"},
	{inventory.RuleUnique, "", "piece ids, tags, classes and surface slots are unique (uniqueItems compares whole items)"},
	{inventory.RuleUnitVector, "", "a lift direction has length 1 (arithmetic over three items)"},
	{inventory.RuleFormat, "<Asset>.<Asset>_C", "a class's object is its asset's name plus _C (a back-reference)"},
	{inventory.RuleDuplicateKey, "", "a key twice in one object (lost when the text is parsed)"},
	{inventory.RuleInteger, "", "schema and slot are written as integers (JSON Schema calls 1.0 and 1e0 integers)"},
	{inventory.RuleEncoding, "", "UTF-8 without a BOM (a property of the text)"},
}

func compile(t testing.TB) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(inventory.JSONSchema))
	if err != nil {
		t.Fatalf("forgepack.schema.json: %v", err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(inventory.JSONSchemaURL, doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile(inventory.JSONSchemaURL)
	if err != nil {
		t.Fatalf("compile forgepack.schema.json: %v", err)
	}
	return sch
}

// TestSchemaID keeps the $id and the constant a manifest names equal.
func TestSchemaID(t *testing.T) {
	var head struct {
		ID     string `json:"$id"`
		Schema string `json:"$schema"`
	}
	if err := json.Unmarshal(inventory.JSONSchema, &head); err != nil {
		t.Fatal(err)
	}
	if head.ID != inventory.JSONSchemaURL || head.Schema != "https://json-schema.org/draft/2020-12/schema" {
		t.Fatalf("$id %q, $schema %q; want %q and draft 2020-12", head.ID, head.Schema, inventory.JSONSchemaURL)
	}
}

// TestPublishedSchema keeps the copy of the schema at the address
// JSONSchemaURL names, schema/forgepack.schema.json of the repository,
// equal to the one forgesync embeds: editors fetch that copy for every
// manifest `forgesync init` wrote.
func TestPublishedSchema(t *testing.T) {
	const published = "../schema/forgepack.schema.json"
	data, err := os.ReadFile(published)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(data, inventory.JSONSchema) {
		t.Errorf("%s differs from inventory/forgepack.schema.json: edit the one in inventory/, then copy it to schema/ (the address JSONSchemaURL names)", published)
	}
}

// TestEveryFieldDocumented walks the schema: every property has a title and
// a description, so an editor explains each field it completes.
func TestEveryFieldDocumented(t *testing.T) {
	var doc map[string]any
	if err := json.Unmarshal(inventory.JSONSchema, &doc); err != nil {
		t.Fatal(err)
	}
	n := 0
	var walk func(path string, v any)
	walk = func(path string, v any) {
		m, ok := v.(map[string]any)
		if !ok {
			return
		}
		if props, ok := m["properties"].(map[string]any); ok && path != "allOf" {
			for name, p := range props {
				pm := p.(map[string]any)
				if _, isRef := pm["$ref"]; isRef {
					continue
				}
				if strings.Contains(path, "allOf") {
					continue // the if/then clauses restate fields, they do not define them
				}
				n++
				if pm["title"] == nil || pm["description"] == nil {
					t.Errorf("%s.%s has no title or description", path, name)
				}
			}
		}
		for k, child := range m {
			switch c := child.(type) {
			case map[string]any:
				walk(path+"."+k, c)
			case []any:
				for i, item := range c {
					walk(path+"."+k+"["+strconv.Itoa(i)+"]", item)
				}
			}
		}
	}
	walk("", doc)
	if n < 28 { // 8 top-level, 8 piece, 6 lift, 4 door, 2 surface fields
		t.Fatalf("found %d documented properties; the schema lost fields", n)
	}
}

// manifestCase is one manifest of the agreement corpus.
type manifestCase struct {
	name string
	data []byte
}

// TestAgreement runs every manifest of the corpus through the JSON Schema
// validator and through the inventory decoder (what `scan` runs), and
// requires them to agree, but for the faults listed in crossField.
func TestAgreement(t *testing.T) {
	sch := compile(t)
	cases := corpus(t)
	if len(cases) < 100 {
		t.Fatalf("corpus has %d manifests; want at least 100", len(cases))
	}
	var valid, invalid, disagree int
	listed := map[string]int{}
	for _, c := range cases {
		schemaErr := validate(sch, c.data)
		_, scanErr := inventory.Decode(inventory.ManifestName, c.data)
		switch {
		case scanErr == nil && schemaErr == nil:
			valid++
		case scanErr == nil:
			disagree++
			t.Errorf("%s: the schema rejects what scan accepts: %v", c.name, schemaErr)
		case schemaErr != nil:
			invalid++
		default:
			invalid++
			var me *inventory.ManifestError
			if !errors.As(scanErr, &me) {
				t.Fatalf("%s: scan: %v is not a ManifestError", c.name, scanErr)
			}
			for _, fe := range me.Errors {
				why := crossFieldRule(fe)
				if why == "" {
					disagree++
					t.Errorf("%s: the schema accepts what scan rejects for a rule it should express: %v", c.name, fe)
					continue
				}
				listed[why]++
			}
		}
	}
	t.Logf("%d manifests: %d valid, %d invalid, %d disagreements", len(cases), valid, invalid, disagree)
	for _, r := range crossField {
		t.Logf("not in the schema, checked by scan: %s (%d faults in the corpus)", r.why, listed[r.why])
		if listed[r.why] == 0 {
			t.Errorf("the corpus never exercises the listed rule %q: add a case or drop it from the list", r.why)
		}
	}
	if valid < 20 || invalid < 60 {
		t.Errorf("corpus is lopsided: %d valid, %d invalid", valid, invalid)
	}
}

func crossFieldRule(fe rejection.Reason) string {
	for _, r := range crossField {
		if fe.Rule == r.rule && strings.Contains(fe.Message, r.message) {
			return r.why
		}
	}
	return ""
}

// validate reports the schema's verdict on data; text that is not JSON
// fails here as it fails in an editor.
func validate(sch *jsonschema.Schema, data []byte) error {
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return fmt.Errorf("not JSON: %w", err)
	}
	return sch.Validate(inst)
}

// corpus returns the example packs, the decoder's test manifests, and
// mutations of a base manifest that sit just inside and just outside each
// rule of SPEC §3.
func corpus(t *testing.T) []manifestCase {
	t.Helper()
	var out []manifestCase
	files, _ := filepath.Glob("../cmd/forgesync/examples/*/forgepack.json")
	more, _ := filepath.Glob("testdata/manifests/*.json")
	files = append(files, more...)
	if len(files) < 6 {
		t.Fatalf("found %d manifest files; the examples or the decoder's testdata moved", len(files))
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, manifestCase{f, data})
	}
	for _, m := range mutations() {
		doc := base()
		m.edit(doc)
		data, err := json.MarshalIndent(doc, "", "  ")
		if err != nil {
			t.Fatalf("%s: %v", m.name, err)
		}
		out = append(out, manifestCase{m.name, data})
	}
	return append(out, rawCases()...)
}

type obj = map[string]any

func base() obj {
	return obj{
		"schema": 1, "id": "test-pack", "version": "1.0.0", "name": "Test Pack",
		"authors": []any{"Spartan Builder"}, "description": "A pack for the agreement test.",
		"pieces": []any{
			obj{
				"id": "lift_pad", "kind": "block", "tag": `mjolnir\forge\test-pack\lift_pad`,
				"class":        "/Game/MJOLNIR/Forge/test-pack/Blocks/BP_Lift.BP_Lift_C",
				"dimensions_m": []any{4, 4, 0.5},
				"lift": obj{"offset_m": []any{0, 0, 0.45}, "size_m": []any{4, 4, 3.5}, "direction": []any{0, 0, 1},
					"acceleration_m_s2": 20, "max_speed_m_s": 4.5, "negates_gravity": true},
			},
			obj{
				"id": "gate", "kind": "panel", "tag": `mjolnir\forge\test-pack\gate`,
				"class":        "/Game/MJOLNIR/Forge/test-pack/Panels/BP_Gate.BP_Gate_C",
				"dimensions_m": []any{4, 0.5, 4},
				"door":         obj{"travel_m": 4, "speed_m_s": 4, "trigger_size_m": []any{8, 16, 6}, "hold_open_s": 2},
				"surfaces":     []any{obj{"slot": 0, "profile": "glass_cyan"}},
			},
		},
	}
}

type mutation struct {
	name string
	edit func(obj)
}

// at walks a dotted path of keys and indexes ("pieces.0.lift") to the
// object or list it names.
func at(doc obj, path string) any {
	var cur any = doc
	if path == "" {
		return cur
	}
	for _, k := range strings.Split(path, ".") {
		switch c := cur.(type) {
		case obj:
			cur = c[k]
		case []any:
			i, _ := strconv.Atoi(k)
			cur = c[i]
		}
	}
	return cur
}

// set returns a mutation that sets the last element of path to v.
func set(path string, v any) mutation {
	return mutation{fmt.Sprintf("%s=%v", path, v), func(doc obj) {
		parent, last := "", path
		if i := strings.LastIndexByte(path, '.'); i >= 0 {
			parent, last = path[:i], path[i+1:]
		}
		switch c := at(doc, parent).(type) {
		case obj:
			c[last] = v
		case []any:
			i, _ := strconv.Atoi(last)
			c[i] = v
		}
	}}
}

// del returns a mutation that deletes the key at path.
func del(path string) mutation {
	return mutation{"delete " + path, func(doc obj) {
		parent, last := "", path
		if i := strings.LastIndexByte(path, '.'); i >= 0 {
			parent, last = path[:i], path[i+1:]
		}
		delete(at(doc, parent).(obj), last)
	}}
}

// both applies mutations in order, under one name.
func both(name string, ms ...mutation) mutation {
	return mutation{name, func(doc obj) {
		for _, m := range ms {
			m.edit(doc)
		}
	}}
}

// withID changes the pack id and moves every tag and class under it, so
// only the id itself is judged.
func withID(id string) mutation {
	return mutation{"id=" + id, func(doc obj) {
		doc["id"] = id
		for _, p := range doc["pieces"].([]any) {
			pm := p.(obj)
			pm["tag"] = strings.Replace(pm["tag"].(string), "test-pack", id, 1)
			pm["class"] = strings.Replace(pm["class"].(string), "test-pack", id, 1)
		}
	}}
}

// manyPieces returns n distinct blocks.
func manyPieces(n int) []any {
	out := make([]any, n)
	for i := range out {
		out[i] = obj{
			"id": "p" + strconv.Itoa(i), "kind": "block", "tag": `mjolnir\forge\test-pack\p` + strconv.Itoa(i),
			"class":        "/Game/MJOLNIR/Forge/test-pack/B" + strconv.Itoa(i) + ".B" + strconv.Itoa(i) + "_C",
			"dimensions_m": []any{1, 1, 1},
		}
	}
	return out
}

func surfaces(n int) []any {
	out := make([]any, n)
	for i := range out {
		out[i] = obj{"slot": i % 16, "profile": "teleporter_green"}
	}
	return out
}

func strs(n int, s string) []any {
	out := make([]any, n)
	for i := range out {
		out[i] = s
	}
	return out
}

func mutations() []mutation {
	const (
		block = "pieces.0"
		panel = "pieces.1"
		lift  = "pieces.0.lift"
		door  = "pieces.1.door"
	)
	long := func(n int) string { return strings.Repeat("a", n) }
	ms := []mutation{
		{"base", func(obj) {}},
		set("$schema", inventory.JSONSchemaURL), set("$schema", 5), set("$schema", "./"+long(1030)),
		set("extra", true),
		set("schema", 1), set("schema", 2), set("schema", "1"), set("schema", 0),
		del("schema"), del("id"), del("version"), del("name"), del("authors"), del("pieces"), del("description"),
		withID("abc"), withID(long(48)), withID("a1-b2-c3"),
		withID("ab"), withID(long(49)), withID("Foo-pack"), withID("a--b"), withID("-abc"), withID("abc-"), withID("ab_c"),
		set("id", 7),
		set("version", "1.0.0-alpha.1"), set("version", "1.0.0+build.7"), set("version", "10.20.30"),
		set("version", "1.0"), set("version", "01.0.0"), set("version", "1.0.0-"), set("version", "v1.0.0"),
		set("version", "1.0.0+"+long(58)), set("version", "1.0.0+"+long(59)), set("version", "1.0.0-01"),
		set("name", "x"), set("name", strings.Repeat("é", 64)), set("name", strings.Repeat("é", 65)),
		set("name", ""), set("name", "bell\u0007"), set("name", "tab\there"), set("name", "del\u007f"), set("name", 12),
		set("authors", []any{}), set("authors", strs(16, "A")), set("authors", strs(17, "A")), set("authors", []any{""}),
		set("authors", []any{long(64)}), set("authors", []any{long(65)}), set("authors", "A"), set("authors", []any{3}),
		set("description", long(1000)), set("description", long(1001)), set("description", "two\nlines\tand a tab"),
		set("description", "nul\u0001"), set("description", nil), set("description", ""),
		set("pieces", []any{}), set("pieces", manyPieces(512)), set("pieces", manyPieces(513)), set("pieces", obj{}),
		set(block+".id", "A"), set(block+".id", long(48)), set(block+".id", long(49)), set(block+".id", ""), set(block+".id", "gate"),
		set(block+".kind", "wall"), set(block+".kind", nil), del(block + ".kind"), del(block + ".tag"), del(block + ".class"), del(block + ".dimensions_m"),
		set(block+".extra", 1),
		set(block+".tag", `mjolnir\forge\other-pack\lift_pad`), set(block+".tag", `mjolnir\forge\test-pack`),
		set(block+".tag", `mjolnir\forge\test-pack\.`), set(block+".tag", `mjolnir\forge\test-pack\..`),
		set(block+".tag", `mjolnir\forge\test-pack\...`), set(block+".tag", `mjolnir\forge\test-pack\a\\b`),
		set(block+".tag", `mjolnir\forge\test-pack\Lift`), set(block+".tag", `mjolnir\forge\test-pack\`+long(217)),
		set(block+".tag", `mjolnir\forge\test-pack\`+long(216)), set(block+".tag", `mjolnir\forge\test-pack\gate`),
		set(block+".tag", `mjolnir\forge\test-pack\a.b-c_d\e`), set(block+".tag", `mjolnir/forge/test-pack/lift`),
		set(block+".class", "/Game/MJOLNIR/Forge/test-pack/BP.BP_C"), set(block+".class", "/Game/MJOLNIR/Forge/test-pack/BP_A.BP_B_C"),
		set(block+".class", "/Game/MJOLNIR/Forge/test-pack/BP_A.BP_A"), set(block+".class", "/Game/MJOLNIR/Forge/other-pack/BP.BP_C"),
		set(block+".class", "/Game/MJOLNIR/Forge/test-pack//BP.BP_C"), set(block+".class", "/Game/MJOLNIR/Forge/test-pack/Bä/BP.BP_C"),
		set(block+".class", "/Game/MJOLNIR/Forge/test-pack/"+strings.Repeat("D/", 80)+"BP.BP_C"),
		set(block+".class", "/Game/MJOLNIR/Forge/test-pack/"+strings.Repeat("D/", 81)+"BP.BP_C"),
		set(block+".class", "/Game/MJOLNIR/Forge/test-pack/../BP.BP_C"), set(block+".class", "/Game/MJOLNIR/Forge/test-pack/Panels/BP_Gate.BP_Gate_C"),
		set(block+".dimensions_m", []any{0.01, 256, 1}), set(block+".dimensions_m", []any{0.009, 1, 1}),
		set(block+".dimensions_m", []any{1, 256.5, 1}), set(block+".dimensions_m", []any{1, 1}), set(block+".dimensions_m", []any{1, 1, "1"}),
		set(panel+".dimensions_m", []any{64, 64, 64}), set(panel+".dimensions_m", []any{64.5, 1, 1}),
		both("panel without door 100 m", del(door), set(panel+".dimensions_m", []any{100, 1, 1})),
		both("panel door null 100 m", set(door, nil), set(panel+".dimensions_m", []any{100, 1, 1})),
		set(block+".door", obj{"travel_m": 4, "speed_m_s": 4, "trigger_size_m": []any{8, 16, 6}, "hold_open_s": 2}),
		set(block+".door", nil), set(panel+".lift", nil),
		set(panel+".lift", obj{"offset_m": []any{0, 0, 0}, "size_m": []any{1, 1, 1}, "direction": []any{0, 0, 1}, "acceleration_m_s2": 1, "max_speed_m_s": 1, "negates_gravity": false}),
		set(lift, nil), set(lift, []any{}), set(lift+".extra", 1), del(lift + ".offset_m"), del(lift + ".negates_gravity"),
		set(lift+".offset_m", []any{-100, 100, 0}), set(lift+".offset_m", []any{-100.5, 0, 0}), set(lift+".offset_m", []any{0, 0, 101}),
		set(lift+".size_m", []any{0.1, 100, 1}), set(lift+".size_m", []any{0.09, 1, 1}), set(lift+".size_m", []any{1, 100.1, 1}),
		set(lift+".direction", []any{0.6, 0.8, 0}), set(lift+".direction", []any{0, 0, 2}), set(lift+".direction", []any{0, 0, 1.0004}),
		set(lift+".direction", []any{0, 0, "1"}), set(lift+".direction", []any{0, 1}),
		set(lift+".acceleration_m_s2", 0.1), set(lift+".acceleration_m_s2", 0.05), set(lift+".acceleration_m_s2", 100), set(lift+".acceleration_m_s2", 101),
		set(lift+".max_speed_m_s", 30), set(lift+".max_speed_m_s", 30.5), set(lift+".max_speed_m_s", 0.09), set(lift+".max_speed_m_s", "4"),
		set(lift+".negates_gravity", false), set(lift+".negates_gravity", 1), set(lift+".negates_gravity", "true"),
		set(door, []any{}), set(door+".extra", 1), del(door + ".hold_open_s"),
		set(door+".travel_m", 0.001), set(door+".travel_m", 16), set(door+".travel_m", 0), set(door+".travel_m", 16.01),
		set(door+".speed_m_s", 8), set(door+".speed_m_s", 8.1), set(door+".speed_m_s", -1),
		set(door+".trigger_size_m", []any{32, 32, 32}), set(door+".trigger_size_m", []any{32.5, 1, 1}), set(door+".trigger_size_m", []any{0, 1, 1}),
		set(door+".hold_open_s", 0), set(door+".hold_open_s", 10), set(door+".hold_open_s", 10.5), set(door+".hold_open_s", -0.1),
		set(panel+".surfaces", nil), set(panel+".surfaces", []any{}), set(panel+".surfaces", surfaces(16)), set(panel+".surfaces", surfaces(17)),
		set(panel+".surfaces", []any{obj{"slot": 15, "profile": "glass_cyan"}}), set(panel+".surfaces", []any{obj{"slot": 16, "profile": "glass_cyan"}}),
		set(panel+".surfaces", []any{obj{"slot": -1, "profile": "glass_cyan"}}), set(panel+".surfaces", []any{obj{"slot": 1.5, "profile": "glass_cyan"}}),
		set(panel+".surfaces", []any{obj{"slot": "1", "profile": "glass_cyan"}}), set(panel+".surfaces", []any{obj{"slot": 1, "profile": "red"}}),
		set(panel+".surfaces", []any{obj{"slot": 1}}), set(panel+".surfaces", []any{obj{"slot": 1, "profile": "glass_cyan", "x": 1}}),
		set(panel+".surfaces", []any{obj{"slot": 1, "profile": "glass_cyan"}, obj{"slot": 1, "profile": "teleporter_green"}}),
		set(panel+".surfaces", []any{"glass_cyan"}), set(panel+".surfaces", obj{}),
		set(block+".surfaces", []any{obj{"slot": 3, "profile": "teleporter_green"}}),
	}
	return ms
}

// rawCases are manifests whose fault is in the text, not in the values.
func rawCases() []manifestCase {
	good, _ := json.Marshal(base())
	replace := func(name, old, new string) manifestCase {
		return manifestCase{name, bytes.Replace(good, []byte(old), []byte(new), 1)}
	}
	return []manifestCase{
		{"BOM", append([]byte("\ufeff"), good...)},
		{"trailing data", append(slices.Clone(good), []byte(" {}")...)},
		{"trailing whitespace", append(slices.Clone(good), []byte("\n\n")...)},
		replace("duplicate key", `"schema":1`, `"schema":1,"schema":1`),
		replace("schema 1.0", `"schema":1`, `"schema":1.0`),
		replace("schema 1e0", `"schema":1`, `"schema":1e0`),
		replace("slot 0.0", `"slot":0`, `"slot":0.0`),
		replace("hold 1e400", `"hold_open_s":2`, `"hold_open_s":1e400`),
		replace("hold -0", `"hold_open_s":2`, `"hold_open_s":-0`),
		replace("hold 2e0", `"hold_open_s":2`, `"hold_open_s":2e0`),
		replace("invalid UTF-8", `Test Pack`, "Test \xff Pack"),
		replace("not JSON", `"schema":1`, `"schema":`),
	}
}
