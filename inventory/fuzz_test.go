package inventory

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// FuzzDecode feeds the decoder arbitrary bytes: it must never panic, every
// rejection must be a *ManifestError with positions inside the file, and
// anything it accepts has an id and pieces (render's FuzzManifest holds its
// stored form).
func FuzzDecode(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/manifests/*.json")
	for _, p := range seeds {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := Decode("fuzz.json", data)
		if err != nil {
			var me *ManifestError
			if !errors.As(err, &me) || len(me.Errors) == 0 {
				t.Fatalf("Decode error %T %v is not a non-empty *ManifestError", err, err)
			}
			for _, fe := range me.Errors {
				if fe.Line < 1 || fe.Column < 1 || fe.Rule == "" || fe.Message == "" {
					t.Fatalf("fault without position, rule or message: %+v", fe)
				}
			}
			return
		}
		if m.ID == "" || len(m.Pieces) == 0 {
			t.Fatalf("accepted manifest without an id or pieces: %+v", m)
		}
	})
}

// FuzzFastFloat checks the allocation-free number path against strconv.
func FuzzFastFloat(f *testing.F) {
	for _, s := range []string{"0", "-0", "0.45", "4.5", "123456789012345", "0.000000000000001", "-100.01", "256.001"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := fastFloat([]byte(s))
		if !ok {
			return
		}
		want, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return // fastFloat is only reached for valid JSON numbers
		}
		if got != want {
			t.Fatalf("fastFloat(%q) = %v; want %v", s, got, want)
		}
	})
}
