package pipeline

import (
	"runtime"
	"testing"

	"github.com/mjolnir-forge/forgesync/internal/atomicfile"
)

// TestInstallFlushesWhatDurabilityNeeds counts the flushes (fsync, each a
// possible journal commit that waits for the disk) of this process while
// one small pack installs, against what a power loss at any moment needs:
// the content's folders once its files are in (the child flushed the
// files), the stored manifest and its folder, the state that commits the
// install and its folder (it names the hashes of the inventory it
// renders, so no second save records them: a pass checks the files on
// disk against them and publishes again when they differ), and the
// published inventory files and their folder. The attempt
// count is advisory and not flushed: a power loss may lose a try's count,
// never an install. The child's flushes of the staged files happen in the
// child and are not counted here.
func TestInstallFlushesWhatDurabilityNeeds(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("folders are not flushed on Windows")
	}
	e := newEnv(t)
	p := e.open(t)
	e.dropPack(t, "doors.zip", spec{id: "door-pack", version: "1.0.0", doors: 2,
		content: map[string]string{"D.pak": "pak-bytes", "E.pak": "more-bytes"}})
	before := atomicfile.Fsyncs()
	sum := mustSync(t, p, map[string]Result{"doors.zip": ResultInstalled})
	got := atomicfile.Fsyncs() - before
	const (
		content  = 2 // <paks>/MJOLNIRForge and <paks>/MJOLNIRForge/door-pack
		manifest = 2 // the file and manifests/
		commit   = 2 // packs.json and the state folder
	)
	want := int64(content + manifest + commit + len(sum.Published) + 1)
	if got > want {
		t.Errorf("installing one small pack flushed %d times; durability needs %d (%d inventory files published)", got, want, len(sum.Published))
	}

	// A pass with nothing to do flushes nothing.
	before = atomicfile.Fsyncs()
	mustSync(t, p, map[string]Result{})
	if got := atomicfile.Fsyncs() - before; got != 0 {
		t.Errorf("an idle pass flushed %d times; want 0", got)
	}
}
