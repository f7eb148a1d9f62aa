package pipeline

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestNonUTF8Paths: with a drop folder and a state folder whose names hold
// bytes that are not UTF-8, a pack named in Latin-1 (For\xeat.zip) installs
// through the isolated child, which got the paths as JSON strings and lost
// those bytes. The archive keeps its real name on disk; the summary's JSON
// is valid UTF-8.
func TestNonUTF8Paths(t *testing.T) {
	if runtime.GOOS == "windows" || runtime.GOOS == "darwin" {
		t.Skip("the file system takes only valid names")
	}
	root := filepath.Join(t.TempDir(), "For\xeat")
	e := envAt(root)
	e.drop = filepath.Join(root, "dr\xf6p")
	e.state = filepath.Join(root, "st\xe4te")
	p := e.open(t)
	const name = "For\xeat.zip"
	const bad = "B\xe4d.zip"
	e.dropPack(t, name, spec{id: "latin-pack", version: "1.0.0", doors: 1})
	e.dropPack(t, bad, spec{id: "bad-pack", version: "1.0.0", doors: 1, bad: true})
	sum, err := p.SyncDrop(t.Context())
	if err != nil {
		t.Fatalf("Sync = %v", err)
	}
	if got := results(sum); got[name] != ResultInstalled || got[bad] != ResultRejected {
		t.Fatalf("Sync: %q %v, %q %v (outcomes %+v); want installed and rejected", name, got[name], bad, got[bad], sum.Outcomes)
	}
	// The rejected archive and its note keep the real bytes of its name;
	// the records served as JSON are valid UTF-8.
	for _, f := range []string{bad, bad + ".txt"} {
		if _, err := os.Stat(filepath.Join(e.drop, rejectedDir, f)); err != nil {
			t.Fatalf("rejected archive: %v", err)
		}
	}
	recs, err := Rejections(e.drop, e.state)
	if err != nil || len(recs) != 1 || recs[0].Archive != bad || recs[0].Pack != "bad-pack" || len(recs[0].Reasons) == 0 {
		t.Fatalf("Rejections = %+v, %v; want the record of %q with its pack and reasons", recs, err, bad)
	}
	if data, err := json.Marshal(recs); err != nil || !utf8.Valid(data) {
		t.Fatalf("json.Marshal(rejections) = %q, %v; want valid UTF-8", data, err)
	}
	if !strings.Contains(e.inv("installed.txt"), "latin-pack") {
		t.Fatalf("installed.txt = %q; want latin-pack", e.inv("installed.txt"))
	}
	data, err := json.Marshal(sum)
	if err != nil || !utf8.Valid(data) {
		t.Fatalf("json.Marshal(summary) = %q, %v; want valid UTF-8", data, err)
	}
}
