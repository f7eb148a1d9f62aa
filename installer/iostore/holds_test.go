package iostore_test

import (
	"errors"
	"testing"
	"testing/fstest"

	"github.com/mjolnir-forge/forgesync/installer/iostore"
	"github.com/mjolnir-forge/forgesync/installer/iostore/tocfixture"
)

// TestHolds: what the containers Require reads carry, for a message: only
// package exports count (not bulk data, not a TOC without its .ucas), each
// id once, the list cut after 10.
func TestHolds(t *testing.T) {
	id := func(name string) string { return "0x" + iostore.ChunkID(iostore.PackageID(name)).String() }
	var many []tocfixture.Chunk
	for i := range 12 {
		many = append(many, tocfixture.Export(string(rune('a'+i))))
	}
	manyIDs := ""
	for i := range 10 {
		if i > 0 {
			manyIDs += ", "
		}
		manyIDs += id(string(rune('a' + i)))
	}
	for _, tc := range []struct {
		name string
		fsys func(fstest.MapFS)
		want string
	}{
		{"no content folder", func(fstest.MapFS) {}, "no .utoc/.ucas pair"},
		{"a TOC without its cas", func(m fstest.MapFS) {
			m["content/a.utoc"] = &fstest.MapFile{Data: container(tocfixture.UE5, tocfixture.Export(glass)).UTOC()}
		}, "no .utoc/.ucas pair"},
		{"bulk data only", func(m fstest.MapFS) { put(m, "content", "a", container(tocfixture.UE5, tocfixture.Bulk(glass))) },
			"1 container with no package exports"},
		{"one export, twice", func(m fstest.MapFS) {
			put(m, "content", "a", container(tocfixture.UE5, tocfixture.Export(glass), tocfixture.Bulk(green)))
			put(m, "content/sub", "b", container(tocfixture.UE427, tocfixture.Export(glass)))
		}, "2 containers with package id " + id(glass)},
		{"twelve", func(m fstest.MapFS) { put(m, "content", "a", container(tocfixture.UE5, many...)) },
			"1 container with package ids " + manyIDs + " and 2 more"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fsys := fstest.MapFS{}
			tc.fsys(fsys)
			h, err := iostore.Holds(fsys, "content")
			if err != nil {
				t.Fatal(err)
			}
			if got := h.String(); got != tc.want {
				t.Fatalf("Holds().String() = %q; want %q", got, tc.want)
			}
		})
	}
	bad := fstest.MapFS{"content/a.utoc": {Data: []byte("short")}, "content/a.ucas": {Data: []byte("x")}}
	var te *iostore.TOCError
	if _, err := iostore.Holds(bad, "content"); !errors.As(err, &te) {
		t.Fatalf("Holds(a cut TOC) = %v; want a *TOCError", err)
	}
}
