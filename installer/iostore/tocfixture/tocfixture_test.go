package tocfixture_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/mjolnir-forge/forgesync/installer/iostore"
	"github.com/mjolnir-forge/forgesync/installer/iostore/tocfixture"
)

func TestContainerRoundTrip(t *testing.T) {
	allFlags := iostore.FlagCompressed | iostore.FlagEncrypted | iostore.FlagSigned | iostore.FlagIndexed | iostore.FlagOnDemand
	for _, tc := range []struct {
		name    string
		c       tocfixture.Container
		version iostore.Version
		layout  iostore.Layout
	}{
		{"default is UE5", tocfixture.Container{}, 8, iostore.LayoutUE5},
		{"ue4.27", tocfixture.Container{Engine: tocfixture.UE427}, 3, iostore.LayoutUE4},
		{"ue4.27 all flags", tocfixture.Container{Engine: tocfixture.UE427, Flags: allFlags}, 3, iostore.LayoutUE4},
		{"ue5 all flags", tocfixture.Container{Engine: tocfixture.UE5, Flags: allFlags}, 8, iostore.LayoutUE5},
		{"ue5 version 5", tocfixture.Container{Engine: tocfixture.UE5, Version: 5}, 5, iostore.LayoutUE5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := tc.c
			c.Chunks = []tocfixture.Chunk{
				tocfixture.Export("/Game/A"),
				tocfixture.Bulk("/Game/A"),
				{ID: 77, Index: 513, Kind: iostore.KindMemoryMappedBulkData},
			}
			b := c.UTOC()
			toc, err := iostore.ReadFS(fstest.MapFS{"x.utoc": {Data: b}}, "x.utoc")
			if err != nil {
				t.Fatalf("Read = %v", err)
			}
			if toc.Version != tc.version || toc.Layout != tc.layout || toc.Flags != c.Flags {
				t.Errorf("version %d layout %v flags %v; want %d %v %v", toc.Version, toc.Layout, toc.Flags, tc.version, tc.layout, c.Flags)
			}
			if toc.ContainerID == 0 {
				t.Error("container id 0")
			}
			want := []iostore.Chunk{
				{ID: iostore.ChunkID(iostore.PackageID("/Game/A")), Kind: iostore.KindExportBundleData},
				{ID: iostore.ChunkID(iostore.PackageID("/Game/A")), Kind: iostore.KindBulkData},
				{ID: 77, Index: 513, Kind: iostore.KindMemoryMappedBulkData},
				{ID: toc.ContainerID, Kind: iostore.KindContainerHeader},
			}
			if len(toc.Chunks) != len(want) {
				t.Fatalf("%d chunks; want %d", len(toc.Chunks), len(want))
			}
			for i, w := range want {
				w.Type, _ = tc.layout.TypeOf(w.Kind)
				if toc.Chunks[i] != w {
					t.Errorf("chunk %d = %+v; want %+v", i, toc.Chunks[i], w)
				}
			}
			if got := len(c.UCAS()); got != 32*len(want) {
				t.Errorf("len(UCAS()) = %d; want %d", got, 32*len(want))
			}
		})
	}
}

func TestUnknownKindPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("UE 4.27 ScriptObjects chunk did not panic")
		}
	}()
	tocfixture.Container{Engine: tocfixture.UE427, Chunks: []tocfixture.Chunk{{ID: 1, Kind: iostore.KindScriptObjects}}}.UTOC()
}

func TestWriteAndRequire(t *testing.T) {
	dir := t.TempDir()
	for _, e := range []tocfixture.Engine{tocfixture.UE427, tocfixture.UE5} {
		if err := tocfixture.Surfaces(e, "glass-works").Write(filepath.Join(dir, "content"), e.Layout().String()); err != nil {
			t.Fatal(err)
		}
	}
	entries, err := os.ReadDir(filepath.Join(dir, "content"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if got := strings.Join(names, " "); got != "UE4.27.ucas UE4.27.utoc UE5.ucas UE5.utoc" {
		t.Errorf("content/ holds %s", got)
	}
	missing, err := iostore.Require(os.DirFS(dir), "content", tocfixture.SurfacePackages("glass-works"))
	if err != nil || missing != nil {
		t.Errorf("Require = %v, %v; want nil, nil", missing, err)
	}
	missing, err = iostore.Require(os.DirFS(dir), "content", tocfixture.SurfacePackages("other"))
	if err != nil || len(missing) != 2 {
		t.Errorf("Require(other pack) = %v, %v; want both missing", missing, err)
	}
}
