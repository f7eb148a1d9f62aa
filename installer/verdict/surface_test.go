package verdict

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mjolnir-forge/forgesync/installer/intake"
	"github.com/mjolnir-forge/forgesync/installer/iostore"
	"github.com/mjolnir-forge/forgesync/installer/iostore/tocfixture"
)

// surfacePack is glass-works renamed to id, so its manifest asks for
// packages under /Game/MJOLNIR/Forge/<id>/, with content/ holding c.
func surfacePack(t *testing.T, id string, c *tocfixture.Container) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), id)
	data, err := os.ReadFile("../../cmd/forgesync/examples/glass-works/forgepack.json")
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{"forgepack.json": strings.ReplaceAll(string(data), "glass-works", id)}
	if c != nil {
		files["content/Surfaces.utoc"] = string(c.UTOC())
		files["content/Surfaces.ucas"] = "cas"
	}
	writeFiles(t, dir, files)
	return dir
}

func textOf(t *testing.T, dir string) string {
	t.Helper()
	rep, err := checkDir(dir, intake.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := WriteText(&out, rep); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

// TestMissingPackageSaysWhatItFound: the message names the id looked for
// and the package it stands for, then what content/ holds instead.
func TestMissingPackageSaysWhatItFound(t *testing.T) {
	const glass = "/Game/MJOLNIR/Forge/neon-halls/Surfaces/MI_GlassCyan"
	const green = "/Game/MJOLNIR/Forge/neon-halls/Surfaces/MI_TeleporterGreen"
	id := func(name string) string { return "0x" + iostore.ChunkID(iostore.PackageID(name)).String() }
	// Cooked under the old pack id: both ids differ from those wanted.
	old := tocfixture.Surfaces(tocfixture.UE5, "glass-works")
	dir := surfacePack(t, "neon-halls", &old)
	holds := "1 container with package ids " + id("/Game/MJOLNIR/Forge/glass-works/Surfaces/MI_GlassCyan") + ", " +
		id("/Game/MJOLNIR/Forge/glass-works/Surfaces/MI_TeleporterGreen")
	line := func(name string) string {
		return dir + "/content: looked for package id " + id(name) + " for " + name +
			" (a surface profile needs it as an export bundle: ExportBundleData, index 0, in a .utoc/.ucas pair under content/); content/ holds: " +
			holds + " [missing-package]\n"
	}
	want := line(glass) + line(green) + "neon-halls 2.0.0: invalid, 2 problems\n"
	if got := textOf(t, dir); got != want {
		t.Fatalf("scan =\n%s\nwant\n%s", got, want)
	}

	// No containers at all.
	dir = surfacePack(t, "neon-halls", nil)
	if got := textOf(t, dir); !strings.Contains(got, "/content: looked for package id "+id(glass)+" for "+glass+
		" (a surface profile needs it as an export bundle: ExportBundleData, index 0, in a .utoc/.ucas pair under content/); content/ holds: no .utoc/.ucas pair [missing-package]\n") {
		t.Fatalf("scan without containers =\n%s", got)
	}

	// Many packages: the first 10, then how many more.
	many := tocfixture.Container{}
	var ids []string
	for i := range 13 {
		name := fmt.Sprintf("/Game/MJOLNIR/Forge/neon-halls/Props/SM_Prop%02d", i)
		many.Chunks = append(many.Chunks, tocfixture.Export(name), tocfixture.Bulk(name))
		ids = append(ids, id(name))
	}
	dir = surfacePack(t, "neon-halls", &many)
	if got := textOf(t, dir); !strings.Contains(got, "; content/ holds: 1 container with package ids "+strings.Join(ids[:10], ", ")+" and 3 more [missing-package]\n") {
		t.Fatalf("scan with 13 packages =\n%s", got)
	}
}
