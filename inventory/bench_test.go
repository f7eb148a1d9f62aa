package inventory

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// manifest512 returns a 512-piece manifest mixing lifts, doors and surfaces.
func manifest512(tb testing.TB) []byte {
	var b strings.Builder
	b.WriteString(`{"schema":1,"id":"bench-pack","version":"1.0.0","name":"Bench","authors":["A"],"pieces":[`)
	for i := range maxPieces {
		if i > 0 {
			b.WriteString(",\n")
		}
		id := fmt.Sprintf("piece_%03d", i)
		switch i % 3 {
		case 0:
			fmt.Fprintf(&b, `{"id":%q,"kind":"block","tag":"mjolnir\\forge\\bench-pack\\%s","class":"/Game/MJOLNIR/Forge/bench-pack/Blocks/BP_%s.BP_%s_C","dimensions_m":[4,4,0.5],"lift":{"offset_m":[0,0,0.45],"size_m":[4,4,3.5],"direction":[0,0.6,0.8],"acceleration_m_s2":20,"max_speed_m_s":4.5,"negates_gravity":true}}`, id, id, id, id)
		case 1:
			fmt.Fprintf(&b, `{"id":%q,"kind":"panel","tag":"mjolnir\\forge\\bench-pack\\%s","class":"/Game/MJOLNIR/Forge/bench-pack/Panels/BP_%s.BP_%s_C","dimensions_m":[4,0.5,4],"door":{"travel_m":4,"speed_m_s":4,"trigger_size_m":[8,16,6],"hold_open_s":2},"surfaces":[{"slot":0,"profile":"glass_cyan"},{"slot":1,"profile":"teleporter_green"}]}`, id, id, id, id)
		default:
			fmt.Fprintf(&b, `{"id":%q,"kind":"block","tag":"mjolnir\\forge\\bench-pack\\%s","class":"/Game/MJOLNIR/Forge/bench-pack/Blocks/BP_%s.BP_%s_C","dimensions_m":[2,2,0.25]}`, id, id, id, id)
		}
	}
	b.WriteString("]}")
	data := []byte(b.String())
	if _, err := Decode("bench", data); err != nil {
		tb.Fatal(err)
	}
	return data
}

// BenchmarkDecode compares the strict decoder and validator with plain
// encoding/json unmarshalling of the same bytes into the same structs (which
// checks nothing). Run: go test -bench Decode -benchmem ./inventory
func BenchmarkDecode(b *testing.B) {
	data := manifest512(b)
	b.Run("strict", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for b.Loop() {
			if _, err := Decode("bench", data); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for b.Loop() {
			var m Manifest
			if err := json.Unmarshal(data, &m); err != nil {
				b.Fatal(err)
			}
		}
	})
}
