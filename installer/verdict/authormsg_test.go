package verdict

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/mjolnir-forge/forgesync/installer/intake"
)

// TestForgeignoreHint: a file of the author's own in a pack folder (the
// SVG lift-preview drew) is refused, in every format for people and CI,
// with the .forgeignore line that keeps it there but out of the pack, and
// that line, added, makes the folder a valid pack; a file in the wrong
// place gets no such hint, and the reasons themselves (the JSON) stay as
// an archive's scan gives them.
func TestForgeignoreHint(t *testing.T) {
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS("../../cmd/forgesync/examples/foundry-wide")); err != nil {
		t.Fatal(err)
	}
	writeFiles(t, dir, map[string]string{"lift.svg": "<svg/>", "content/LICENSE": "x"})
	rep, err := checkDir(dir, intake.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	const hint = `; to keep it in this folder but out of the pack, add the line "/lift.svg" to .forgeignore`
	svg := "lift.svg: not allowed in a pack (a pack holds forgepack.json, content/ containers (.utoc .ucas .pak .sig) and README, LICENSE, CHANGELOG or preview files at its root)"
	for _, format := range []string{formatText, formatGitHub, formatSARIF} {
		var out bytes.Buffer
		if err := write(&out, format, []*Report{rep}, "1.0.0"); err != nil {
			t.Fatal(err)
		}
		want := strings.TrimPrefix(svg, "lift.svg: ") + hint
		if format == formatSARIF {
			want = strings.ReplaceAll(want, `"`, `\"`) // in a JSON string
		}
		if !strings.Contains(out.String(), want) || strings.Count(out.String(), "to keep it in this folder but out of the pack") != 1 {
			t.Errorf("Write(%s) =\n%s\nwant the hint once, for lift.svg (not content/LICENSE, which must move)", format, out.String())
		}
	}
	for _, p := range rep.Problems {
		if strings.Contains(p.Message, ".forgeignore") {
			t.Errorf("reason %+v carries the hint; want it only in the folder's words", p)
		}
	}
	writeFiles(t, dir, map[string]string{".forgeignore": "/lift.svg\n"})
	if err := os.Remove(dir + "/content/LICENSE"); err != nil {
		t.Fatal(err)
	}
	if rep, err := checkDir(dir, intake.DefaultLimits()); err != nil || !rep.Valid {
		t.Fatalf("with the hinted .forgeignore line: %+v, %v; want valid", rep.Problems, err)
	}
}

// TestSyntaxErrorNamesFile: a folder scanned as "." whose manifest is not
// JSON says its verdict under the manifest's name, which a user can open,
// not ".".
func TestSyntaxErrorNamesFile(t *testing.T) {
	t.Chdir(t.TempDir())
	writeFiles(t, ".", map[string]string{"forgepack.json": "{\"id\": \"neon-halls\",\n  \"x\": [1,\n}"})
	rep, err := checkDir(".", intake.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := WriteText(&out, rep); err != nil {
		t.Fatal(err)
	}
	want := "forgepack.json:3:1: unexpected character '}', expected a value [syntax]\nforgepack.json: invalid, 1 problem\n"
	if out.String() != want {
		t.Fatalf("WriteText =\n%s\nwant\n%s", out.String(), want)
	}
}
