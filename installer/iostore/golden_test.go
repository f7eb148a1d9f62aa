package iostore_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/mjolnir-forge/forgesync/installer/iostore"
	"github.com/mjolnir-forge/forgesync/installer/iostore/tocfixture"
)

var update = flag.Bool("update", false, "rewrite the fixture goldens in testdata/")

// goldens are fixture TOCs kept in testdata/ so that they seed FuzzRead
// (which cannot import tocfixture) and so that a change to the fixture
// writer shows up as a diff.
var goldens = map[string]tocfixture.Container{
	"fixture-ue4_27.utoc": tocfixture.Surfaces(tocfixture.UE427, "abc"),
	"fixture-ue5-encrypted-signed.utoc": func() tocfixture.Container {
		c := tocfixture.Surfaces(tocfixture.UE5, "z9z")
		c.Flags = iostore.FlagEncrypted | iostore.FlagSigned | iostore.FlagIndexed
		return c
	}(),
	"fixture-v4-no-container-header.utoc": {
		Version:           4,
		NoContainerHeader: true,
		Chunks: []tocfixture.Chunk{
			tocfixture.Export("/Game/MJOLNIR/Forge/abc/Surfaces/MI_GlassCyan"),
			{ID: 5, Index: 3, Kind: iostore.KindOptionalBulkData},
		},
	},
}

func TestFixtureGoldens(t *testing.T) {
	for name, c := range goldens {
		p := filepath.Join("testdata", name)
		got := c.UTOC()
		if *update {
			if err := os.WriteFile(p, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(p)
		if err != nil {
			t.Fatalf("%v (run go test -update to create it)", err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from the fixture writer's output (go test -update rewrites it)", p)
		}
		if _, err := iostore.ReadFile(p); err != nil {
			t.Errorf("ReadFile(%s) = %v", p, err)
		}
	}
}
