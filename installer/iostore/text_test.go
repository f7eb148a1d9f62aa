package iostore_test

import (
	"strings"
	"testing"

	"github.com/mjolnir-forge/forgesync/installer/iostore"
)

func TestWritePackageIDs(t *testing.T) {
	ids := iostore.PackageIDs([]string{"/Game/Fixtures/Maps/Empty", "/Game/PatchFixtures/DA_PatchTarget"})
	if len(ids) != 2 || ids[0].Decimal != 0x910BAD3EBD32CC77 || ids[0].Hex != "0x910BAD3EBD32CC77" {
		t.Fatalf("PackageIDs = %+v", ids)
	}
	var b strings.Builder
	if err := iostore.WritePackageIDs(&b, ids); err != nil {
		t.Fatal(err)
	}
	want := "0x910BAD3EBD32CC77\t/Game/Fixtures/Maps/Empty\n0xEA6DCAF69ECA2F7A\t/Game/PatchFixtures/DA_PatchTarget\n"
	if b.String() != want {
		t.Errorf("WritePackageIDs = %q; want %q", b.String(), want)
	}
}

func TestWriteTOC(t *testing.T) {
	toc := &iostore.TOC{Path: "x.utoc", Chunks: []iostore.Chunk{{Index: 3}}}
	var b strings.Builder
	if err := iostore.WriteTOC(&b, toc); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(b.String(), "\n")
	if len(lines) != 4 || !strings.HasPrefix(lines[0], "x.utoc: TOC version ") || !strings.Contains(lines[0], ", 1 chunks, layout ") ||
		!strings.HasPrefix(lines[1], "ID") || !strings.Contains(lines[2], "  3  ") {
		t.Errorf("WriteTOC =\n%s", b.String())
	}
}
