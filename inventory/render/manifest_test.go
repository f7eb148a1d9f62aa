package render

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/mjolnir-forge/forgesync/inventory"
	"github.com/mjolnir-forge/forgesync/inventory/render/rendertest"
)

// TestManifestMatchesEncodingJSON holds the stored form to the bytes
// encoding/json gives for the same manifest where the number rules agree,
// and checks that it decodes to an equal manifest that renders the same.
func TestManifestMatchesEncodingJSON(t *testing.T) {
	var ms []*inventory.Manifest
	for _, p := range load(t, examples(t)...) {
		ms = append(ms, p.Manifest)
	}
	for _, p := range rendertest.Packs(20) {
		ms = append(ms, p.Manifest)
	}
	for _, m := range ms {
		got, err := Manifest(m)
		if err != nil {
			t.Fatalf("Manifest(%s) = %v", m.ID, err)
		}
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		if err := enc.Encode(m); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want.Bytes()) {
			t.Errorf("Manifest(%s) differs from encoding/json: %s", m.ID, diff(got, want.Bytes()))
		}
		roundTripManifest(t, got)
	}
}

// roundTripManifest checks that a stored form decodes to a manifest that
// renders the same bytes.
func roundTripManifest(t testing.TB, norm []byte) *inventory.Manifest {
	t.Helper()
	m, err := inventory.Decode("stored", norm)
	if err != nil {
		t.Fatalf("stored form does not validate: %v\n%s", err, norm)
	}
	again, err := Manifest(m)
	if err != nil || !bytes.Equal(again, norm) {
		t.Fatalf("stored form changed on a round trip (%v):\n%s\nthen\n%s", err, norm, again)
	}
	return m
}

// TestManifestForm checks the stored form of an old pack (null and omitted
// utilities, [] surfaces) and the number rule of SPEC §6: no exponent, -0
// written 0, the shortest form that reads back the same.
func TestManifestForm(t *testing.T) {
	in := `{"schema":1,"id":"old-pack","version":"1.0.0","name":"Old","authors":["A"],"description":"<old> & \"new\"",
	"pieces":[
	 {"id":"deck","kind":"block","tag":"mjolnir\\forge\\old-pack\\deck","class":"/Game/MJOLNIR/Forge/old-pack/B/BP_D.BP_D_C","dimensions_m":[2,2,0.5],"lift":null,"surfaces":[]},
	 {"id":"gate","kind":"panel","tag":"mjolnir\\forge\\old-pack\\gate","class":"/Game/MJOLNIR/Forge/old-pack/P/BP_G.BP_G_C","dimensions_m":[4,0.5,4],
	  "door":{"travel_m":1e0,"speed_m_s":0.1E1,"trigger_size_m":[8,16,6],"hold_open_s":1e-7},"surfaces":null}]}`
	m, err := inventory.Decode("forgepack.json", []byte(in))
	if err != nil {
		t.Fatal(err)
	}
	want := `{
  "schema": 1,
  "id": "old-pack",
  "version": "1.0.0",
  "name": "Old",
  "authors": [
    "A"
  ],
  "description": "<old> & \"new\"",
  "pieces": [
    {
      "id": "deck",
      "kind": "block",
      "tag": "mjolnir\\forge\\old-pack\\deck",
      "class": "/Game/MJOLNIR/Forge/old-pack/B/BP_D.BP_D_C",
      "dimensions_m": [
        2,
        2,
        0.5
      ]
    },
    {
      "id": "gate",
      "kind": "panel",
      "tag": "mjolnir\\forge\\old-pack\\gate",
      "class": "/Game/MJOLNIR/Forge/old-pack/P/BP_G.BP_G_C",
      "dimensions_m": [
        4,
        0.5,
        4
      ],
      "door": {
        "travel_m": 1,
        "speed_m_s": 1,
        "trigger_size_m": [
          8,
          16,
          6
        ],
        "hold_open_s": 0.0000001
      }
    }
  ]
}
`
	got, err := Manifest(m)
	if err != nil || string(got) != want {
		t.Fatalf("Manifest = %v\n%s\nwant\n%s", err, got, want)
	}
	roundTripManifest(t, got)
}

func TestManifestNegativeZero(t *testing.T) {
	m := pack(t, "zero-pack", withLift(piece("zero-pack", "lift", inventory.KindBlock, "BP_L"))).Manifest
	lift := *m.Pieces[0].Lift
	lift.OffsetM = inventory.Vec3{negZero(), 0, 0.45}
	m.Pieces[0].Lift = &lift
	got, err := Manifest(m)
	if err != nil || bytes.Contains(got, []byte("-0")) || !bytes.Contains(got, []byte("\"offset_m\": [\n          0,\n          0,\n          0.45\n        ]")) {
		t.Fatalf("Manifest with -0 = %v\n%s", err, got)
	}
}

func negZero() float64 {
	z := 0.0
	return -z
}

func TestManifestUnrenderable(t *testing.T) {
	m := pack(t, "nan-pack", piece("nan-pack", "wall", inventory.KindPanel, "BP_W")).Manifest
	m.Pieces[0].Dimensions[0] = negZero() / negZero()
	if _, err := Manifest(m); !errors.Is(err, errUnrenderable) {
		t.Errorf("Manifest with NaN = %v; want ErrUnrenderable", err)
	}
	if _, err := Manifest(nil); !errors.Is(err, errUnrenderable) {
		t.Errorf("Manifest(nil) = %v; want ErrUnrenderable", err)
	}
}

// FuzzManifest: anything the decoder accepts renders to a stored form that
// decodes to an equal manifest and renders to the same bytes.
func FuzzManifest(f *testing.F) {
	seeds, _ := filepath.Glob("../testdata/manifests/*.json")
	examples, _ := filepath.Glob("../../cmd/forgesync/examples/*/forgepack.json")
	for _, p := range append(seeds, examples...) {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := inventory.Decode("fuzz.json", data)
		if err != nil {
			return
		}
		norm, err := Manifest(m)
		if err != nil {
			t.Fatalf("Manifest of an accepted manifest = %v", err)
		}
		if again := roundTripManifest(t, norm); !reflect.DeepEqual(m, again) {
			t.Fatalf("round trip changed the manifest:\n%+v\n%+v", m, again)
		}
	})
}
