package iostore_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"slices"
	"testing"
	"testing/fstest"

	"github.com/mjolnir-forge/forgesync/installer/iostore"
	"github.com/mjolnir-forge/forgesync/installer/iostore/tocfixture"
)

var (
	glass = "/Game/MJOLNIR/Forge/abc/Surfaces/MI_GlassCyan"
	green = "/Game/MJOLNIR/Forge/abc/Surfaces/MI_TeleporterGreen"
	both  = []string{glass, green}
)

// put adds dir/base.utoc and dir/base.ucas of c to fsys.
func put(fsys fstest.MapFS, dir, base string, c tocfixture.Container) {
	fsys[path.Join(dir, base+".utoc")] = &fstest.MapFile{Data: c.UTOC()}
	fsys[path.Join(dir, base+".ucas")] = &fstest.MapFile{Data: c.UCAS()}
}

func container(e tocfixture.Engine, chunks ...tocfixture.Chunk) tocfixture.Container {
	return tocfixture.Container{Engine: e, Chunks: chunks}
}

func TestRequire(t *testing.T) {
	ue4, ue5 := tocfixture.UE427, tocfixture.UE5
	realTOCBytes := readReal(t)
	for _, tc := range []struct {
		name    string
		fsys    func(fstest.MapFS)
		missing []string
	}{
		{"ue4.27 exports (type 2)", func(m fstest.MapFS) {
			put(m, "content", "Surfaces", tocfixture.Surfaces(ue4, "abc"))
		}, nil},
		{"ue5 exports (type 1)", func(m fstest.MapFS) {
			put(m, "content", "Surfaces", tocfixture.Surfaces(ue5, "abc"))
		}, nil},
		{"split across containers and folders", func(m fstest.MapFS) {
			put(m, "content", "A", container(ue5, tocfixture.Export(glass)))
			put(m, "content/deep/er", "B", container(ue4, tocfixture.Export(green)))
		}, nil},
		{"one of two", func(m fstest.MapFS) {
			put(m, "content", "A", container(ue5, tocfixture.Export(green)))
		}, []string{glass}},
		{"bulk data only", func(m fstest.MapFS) {
			put(m, "content", "A", container(ue5, tocfixture.Bulk(glass), tocfixture.Bulk(green)))
			put(m, "content", "B", container(ue4, tocfixture.Bulk(glass), tocfixture.Bulk(green)))
		}, both},
		{"other kinds with the id", func(m fstest.MapFS) {
			id := iostore.PackageID(glass)
			put(m, "content", "A", container(ue5,
				tocfixture.Chunk{ID: id, Kind: iostore.KindOptionalBulkData},
				tocfixture.Chunk{ID: id, Kind: iostore.KindMemoryMappedBulkData},
				tocfixture.Chunk{ID: id, Kind: iostore.KindPackageResource}))
		}, both},
		{"another pack's copies", func(m fstest.MapFS) {
			put(m, "content", "Surfaces", tocfixture.Surfaces(ue5, "other-pack"))
		}, both},
		{"outside content", func(m fstest.MapFS) {
			put(m, ".", "Surfaces", tocfixture.Surfaces(ue5, "abc"))
			put(m, "extra", "Surfaces", tocfixture.Surfaces(ue5, "abc"))
			put(m, "content2", "Surfaces", tocfixture.Surfaces(ue5, "abc"))
		}, both},
		{"no ucas", func(m fstest.MapFS) {
			m["content/Surfaces.utoc"] = &fstest.MapFile{Data: tocfixture.Surfaces(ue5, "abc").UTOC()}
			m["content/Other.ucas"] = &fstest.MapFile{Data: []byte("x")}
		}, both},
		{"ucas is a folder", func(m fstest.MapFS) {
			m["content/Surfaces.utoc"] = &fstest.MapFile{Data: tocfixture.Surfaces(ue5, "abc").UTOC()}
			m["content/Surfaces.ucas/x"] = &fstest.MapFile{Data: []byte("x")}
		}, both},
		{"utoc with another extension", func(m fstest.MapFS) {
			c := tocfixture.Surfaces(ue5, "abc")
			m["content/Surfaces.utoc.bak"] = &fstest.MapFile{Data: c.UTOC()}
			m["content/Surfaces.utoc.ucas"] = &fstest.MapFile{Data: c.UCAS()}
		}, both},
		{"encrypted flag", func(m fstest.MapFS) {
			c := tocfixture.Surfaces(ue4, "abc")
			c.Flags = iostore.FlagEncrypted | iostore.FlagCompressed | iostore.FlagSigned
			put(m, "content", "Surfaces", c)
		}, nil},
		{"index not zero", func(m fstest.MapFS) {
			g, r := tocfixture.Export(glass), tocfixture.Export(green)
			g.Index, r.Index = 1, 0x100
			put(m, "content", "A", container(ue5, g, r))
			put(m, "content", "B", container(ue4, g, r))
		}, both},
		{"4.27 numbering decided by container header", func(m fstest.MapFS) {
			// Version 8, but the container header chunk has 4.27's type
			// 10: raw type 1 is InstallManifest, raw type 2 is the export.
			id := iostore.PackageID(glass)
			put(m, "content", "A", tocfixture.Container{Version: 8, ContainerID: 99, NoContainerHeader: true, Chunks: []tocfixture.Chunk{
				{ID: id, RawType: 1}, {ID: iostore.PackageID(green), RawType: 2}, {ID: 99, RawType: 10},
			}})
		}, []string{glass}},
		{"UE5 numbering decided by container header", func(m fstest.MapFS) {
			id := iostore.PackageID(glass)
			put(m, "content", "A", tocfixture.Container{Version: 3, ContainerID: 99, NoContainerHeader: true, Chunks: []tocfixture.Chunk{
				{ID: 99, RawType: 6}, {ID: id, RawType: 2}, {ID: iostore.PackageID(green), RawType: 1},
			}})
		}, []string{glass}},
		{"no container header, version 3", func(m fstest.MapFS) {
			put(m, "content", "A", tocfixture.Container{Version: 3, NoContainerHeader: true, Chunks: []tocfixture.Chunk{
				{ID: iostore.PackageID(glass), RawType: 1}, {ID: iostore.PackageID(green), RawType: 2},
			}})
		}, []string{glass}},
		{"no container header, version 4", func(m fstest.MapFS) {
			put(m, "content", "A", tocfixture.Container{Version: 4, NoContainerHeader: true, Chunks: []tocfixture.Chunk{
				{ID: iostore.PackageID(glass), RawType: 1}, {ID: iostore.PackageID(green), RawType: 2},
			}})
		}, []string{green}},
		{"no content folder", func(m fstest.MapFS) {}, both},
		{"malformed TOC outside content is not read", func(m fstest.MapFS) {
			put(m, "content", "Surfaces", tocfixture.Surfaces(ue5, "abc"))
			m["other/Bad.utoc"] = &fstest.MapFile{Data: []byte("garbage")}
			m["other/Bad.ucas"] = &fstest.MapFile{Data: []byte("garbage")}
		}, nil},
		{"malformed TOC without ucas is not read", func(m fstest.MapFS) {
			put(m, "content", "Surfaces", tocfixture.Surfaces(ue5, "abc"))
			m["content/Bad.utoc"] = &fstest.MapFile{Data: []byte("garbage")}
		}, nil},
		{"real UE 5.8 TOC", func(m fstest.MapFS) {
			m["content/Real.utoc"] = &fstest.MapFile{Data: realTOCBytes}
			m["content/Real.ucas"] = &fstest.MapFile{}
		}, both},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := fstest.MapFS{}
			tc.fsys(m)
			missing, err := iostore.Require(m, "content", both)
			if err != nil {
				t.Fatalf("Require = %v", err)
			}
			var names []string
			for _, ms := range missing {
				names = append(names, ms.Name)
				if want := iostore.ChunkID(iostore.PackageID(ms.Name)); ms.ID != want {
					t.Errorf("Missing %q has id %v; want %v", ms.Name, ms.ID, want)
				}
			}
			if !slices.Equal(names, tc.missing) {
				t.Errorf("Require missing = %q; want %q", names, tc.missing)
			}
		})
	}
}

func TestRequireRealTOC(t *testing.T) {
	m := fstest.MapFS{
		"content/Paks/Real.utoc": {Data: readReal(t)},
		"content/Paks/Real.ucas": {},
	}
	names := []string{
		"/Game/Fixtures/Maps/Empty",
		"/Game/PatchFixtures/DA_PatchTarget",
		"/game/fixtures/maps/EMPTY",
		"/Game/Fixtures/Maps/WorldPartition/_Generated_/1WD4NAK7SVY0JF8AXYPOSA7U8",
	}
	missing, err := iostore.Require(m, "content", names)
	if err != nil {
		t.Fatal(err)
	}
	want := []iostore.Missing{{Name: "/Game/PatchFixtures/DA_PatchTarget", ID: 0xEA6DCAF69ECA2F7A}}
	if !slices.Equal(missing, want) {
		t.Errorf("Require = %v; want %v", missing, want)
	}
}

// TestRequireMany passes more names than the linear search handles.
func TestRequireMany(t *testing.T) {
	var names []string
	c := tocfixture.Container{}
	for i := range 40 {
		n := fmt.Sprintf("/Game/MJOLNIR/Forge/p%d/Surfaces/MI_GlassCyan", i)
		names = append(names, n)
		if i%3 != 0 {
			c.Chunks = append(c.Chunks, tocfixture.Export(n))
		} else {
			c.Chunks = append(c.Chunks, tocfixture.Bulk(n))
		}
	}
	m := fstest.MapFS{}
	put(m, "pack/content", "Many", c)
	missing, err := iostore.Require(m, "pack/content", append(names, names[0], names[1]))
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for i := 0; i < 40; i += 3 {
		want = append(want, names[i])
	}
	var got []string
	for _, ms := range missing {
		got = append(got, ms.Name)
	}
	if !slices.Equal(got, want) {
		t.Errorf("Require missing = %q; want %q", got, want)
	}
}

func TestRequireErrors(t *testing.T) {
	good := tocfixture.Surfaces(tocfixture.UE5, "abc")
	trunc := good.UTOC()
	trunc = trunc[:len(trunc)-10]
	for _, tc := range []struct {
		name string
		file []byte
		err  error
	}{
		{"bad magic", append([]byte("-==--==--==--==+"), good.UTOC()[16:]...), iostore.ErrBadMagic},
		{"truncated", trunc, iostore.ErrPastEnd},
		{"empty", nil, iostore.ErrTruncated},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := fstest.MapFS{}
			put(m, "content", "Good", good) // names are found, the bad TOC still fails
			m["content/sub/Bad.utoc"] = &fstest.MapFile{Data: tc.file}
			m["content/sub/Bad.ucas"] = &fstest.MapFile{}
			missing, err := iostore.Require(m, "content", both)
			if !errors.Is(err, tc.err) || missing != nil {
				t.Fatalf("Require = %v, %v; want nil, %v", missing, err, tc.err)
			}
			var te *iostore.TOCError
			if !errors.As(err, &te) || te.Path != "content/sub/Bad.utoc" {
				t.Errorf("Require error %v does not name content/sub/Bad.utoc", err)
			}
		})
	}
	if _, err := iostore.Require(fstest.MapFS{}, "../content", both); !errors.Is(err, fs.ErrInvalid) {
		t.Errorf("Require(../content) = %v; want ErrInvalid", err)
	}
	// Nothing required: nothing read, even a broken TOC.
	m := fstest.MapFS{"content/Bad.utoc": {Data: []byte("x")}, "content/Bad.ucas": {}}
	if missing, err := iostore.Require(m, "content", nil); missing != nil || err != nil {
		t.Errorf("Require(no names) = %v, %v; want nil, nil", missing, err)
	}
	// contentDir is a file.
	m = fstest.MapFS{"content": {Data: []byte("x")}}
	if missing, err := iostore.Require(m, "content", both); err != nil || len(missing) != 2 {
		t.Errorf("Require(content is a file) = %v, %v; want both missing", missing, err)
	}
}

// TestRequireDisk runs the check on a real folder, the way the installer
// will, including a symlinked TOC, which is not followed.
func TestRequireDisk(t *testing.T) {
	dir := t.TempDir()
	if err := tocfixture.Surfaces(tocfixture.UE427, "abc").Write(dir+"/content/sub", "Surfaces"); err != nil {
		t.Fatal(err)
	}
	missing, err := iostore.Require(os.DirFS(dir), "content", both)
	if err != nil || missing != nil {
		t.Fatalf("Require = %v, %v; want nil, nil", missing, err)
	}
	dir2 := t.TempDir()
	if err := tocfixture.Surfaces(tocfixture.UE5, "abc").Write(dir2+"/elsewhere", "Surfaces"); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir2+"/content", 0o755); err != nil {
		t.Fatal(err)
	}
	for _, ext := range []string{".utoc", ".ucas"} {
		if err := os.Symlink(dir2+"/elsewhere/Surfaces"+ext, dir2+"/content/Surfaces"+ext); err != nil {
			t.Skipf("no symlinks here: %v", err)
		}
	}
	missing, err = iostore.Require(os.DirFS(dir2), "content", both)
	if err != nil || len(missing) != 2 {
		t.Errorf("Require(symlinked TOC) = %v, %v; want both missing", missing, err)
	}
}

func TestMissingJSON(t *testing.T) {
	m := iostore.Missing{Name: glass, ID: iostore.ChunkID(iostore.PackageID(glass))}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"name":"` + glass + `","id":"36E43942D3E60A95"}`; string(b) != want {
		t.Errorf("json.Marshal(Missing) = %s; want %s", b, want)
	}
}
