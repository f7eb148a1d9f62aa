package verdict

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTextOrderAndRuleIDs: problems come in file, then line order, each
// with its rule id, whatever order the checks found them in (unknown keys
// are found before the fields, fields in schema order).
func TestTextOrderAndRuleIDs(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "lg")
	if err := os.CopyFS(dir, os.DirFS("../../cmd/forgesync/examples/lockout-gates")); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, "forgepack.json"))
	if err != nil {
		t.Fatal(err)
	}
	s := strings.Replace(string(data), `"schema": 1,`, `"schema": 2,`, 1)
	s = strings.Replace(s, `"travel_m": 4`, `"travel_m": 17`, 1)
	s = strings.Replace(s, "\n  \"pieces\"", "\n  \"extra\": true,\n  \"pieces\"", 1)
	s = strings.Replace(s, `"id": "lockout-gates"`, `"id": "Lockout"`, 1)
	writeFiles(t, dir, map[string]string{"forgepack.json": s, "README.exe": "MZ", "content/a.txt": "x"})
	rep := scanned(t, dir)
	var out bytes.Buffer
	if err := WriteText(&out, rep); err != nil {
		t.Fatal(err)
	}
	keep := func(name string) string {
		return `; to keep it in this folder but out of the pack, add the line "/` + name + `" to .forgeignore`
	}
	want := dir + "/README.exe: not allowed in a pack (packs carry data, never code)" + keep("README.exe") + " [not-allowed-in-a-pack]\n" +
		dir + "/content/a.txt: not allowed in a pack (a pack holds forgepack.json, content/ containers (.utoc .ucas .pak .sig) and README, LICENSE, CHANGELOG or preview files at its root)" + keep("content/a.txt") + " [not-allowed-in-a-pack]\n" +
		dir + "/forgepack.json:2:13: schema: must be 1 (the only schema this forgesync reads), got 2 [schema]\n" +
		dir + "/forgepack.json:3:9: id: must be a pack slug: 3–48 bytes of [a-z0-9] with single '-' between them, got \"Lockout\" [format]\n" +
		dir + "/forgepack.json:8:3: extra: unknown key \"extra\" (allowed: schema, id, version, name, authors, description, pieces, $schema) [unknown-key]\n" +
		dir + "/forgepack.json:16:29: pieces[0].door.travel_m: must be > 0 and ≤ 16, got 17 [range]\n" +
		"Lockout 0.3.1: invalid, 6 problems\n"
	if out.String() != want {
		t.Fatalf("WriteText =\n%s\nwant\n%s", out.String(), want)
	}
}
