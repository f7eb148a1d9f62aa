package main

import (
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mjolnir-forge/forgesync/internal/toolcheck"
	"github.com/mjolnir-forge/forgesync/sets/lock"
)

// deltaEdit is issue 25's edit of one file: 1 MiB inserted at a quarter,
// 2 MiB overwritten at the half, 512 KiB appended.
func deltaEdit(v1 []byte) ([]byte, int64) {
	q := len(v1) / 4
	v2 := slices.Concat(v1[:q], bigPak(2, 1<<20), v1[q:])
	copy(v2[len(v2)/2:], bigPak(3, 2<<20))
	return append(v2, bigPak(4, 512<<10)...), 1<<20 + 2<<20 + 512<<10
}

// writeDeltaTree lays out a pack of about mib MiB: a manifest, a
// README, a small unchanged container and the large .pak.
func writeDeltaTree(b *testing.B, dir, version string, pak []byte) {
	b.Helper()
	manifest := fmt.Sprintf(`{"schema":1,"id":"delta-pack","version":%q,"name":"Delta","authors":["Bench"],"pieces":[{"id":"deck","kind":"block","tag":"mjolnir\\forge\\delta-pack\\deck","class":"/Game/MJOLNIR/Forge/delta-pack/Blocks/BP_Deck.BP_Deck_C","dimensions_m":[2,2,0.5]}]}`, version)
	os.MkdirAll(filepath.Join(dir, "content"), 0o755)
	for name, data := range map[string][]byte{
		"forgepack.json":      []byte(manifest),
		"README.md":           []byte(strings.Repeat("a line of notes for the pack\n", 4000)),
		"content/Extra.pak":   bigPak(9, 4<<20),
		"content/Surface.pak": pak,
	} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			b.Fatal(err)
		}
	}
}

// deltaArchive packs dir as form ("zip": by forgesync pack, which
// deflates the text and stores the containers; "tar.zst": zstd
// --rsyncable) into out.
func deltaArchive(b *testing.B, form, dir, out string) {
	b.Helper()
	var cmds [][]string
	switch form {
	case "zip":
		cmds = [][]string{{binary, "pack", dir, "-o", out}}
	case "tar.zst":
		cmds = [][]string{{"sh", "-c", "tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner -cf - forgepack.json README.md content | zstd -q --rsyncable -o " + out}}
	}
	for _, c := range cmds {
		cmd := exec.Command(c[0], c[1:]...)
		cmd.Dir = dir
		if o, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("%s: %v\n%s", strings.Join(c, " "), err, o)
		}
	}
}

// BenchmarkDelta is issue 25's figure, run by scripts/bench-delta.sh: a
// pack of FORGESYNC_DELTA_MIB MiB (default 200) whose large .pak gets the
// edit of deltaEdit, as a zip with its containers stored and as a tar.zst
// made with --rsyncable. A host exports v1; a machine syncs it with the
// real binary; the host exports v2; the machine syncs again through a
// counting server, beside a fresh machine that downloads v2 whole. It
// reports the update's bytes served against the changed bytes and the
// archive, its requests, and the two syncs' wall and CPU seconds.
func BenchmarkDelta(b *testing.B) {
	forms := []string{"zip", "tar.zst"}
	if f := os.Getenv("FORGESYNC_DELTA_FORMS"); f != "" {
		forms = strings.Split(f, ",")
	}
	for _, form := range forms {
		b.Run(form, func(b *testing.B) { benchDelta(b, form) })
	}
}

func benchDelta(b *testing.B, form string) {
	switch form {
	case "tar.zst":
		toolcheck.Need(b, "tar", "zstd")
	}
	mib := envInt("FORGESYNC_DELTA_MIB", 200)
	work := b.TempDir()
	v1 := bigPak(1, mib<<20-4<<20-100<<10)
	v2, changed := deltaEdit(v1)
	for i, pak := range [][]byte{v1, v2} {
		version := fmt.Sprintf("%d.0.0", i+1)
		tree := filepath.Join(work, "tree"+version)
		writeDeltaTree(b, tree, version, pak)
		deltaArchive(b, form, tree, filepath.Join(work, "v"+version+"."+form))
	}

	host := newGameIn(b, filepath.Join(work, "host"))
	site := filepath.Join(work, "site")
	publish := func(version string) {
		entries, _ := os.ReadDir(host.drop)
		for _, e := range entries {
			os.Remove(filepath.Join(host.drop, e.Name()))
		}
		src := filepath.Join(work, "v"+version+"."+form)
		if err := os.Link(src, filepath.Join(host.drop, "delta-pack."+form)); err != nil {
			b.Fatal(err)
		}
		mustRun(b, binary, "sync", "--config", host.config)
		mustRun(b, binary, "export", site, "--prune", "--config", host.config)
	}
	publish("1.0.0")
	var c servedCounter
	srv := httptest.NewServer(c.handler(site))
	defer srv.Close()
	machine := newGameIn(b, filepath.Join(work, "machine"))
	mustRun(b, binary, "sync", "--set", srv.URL+"/", "--config", machine.config)
	publish("2.0.0")
	data, _ := os.ReadFile(filepath.Join(site, lock.LockName))
	l, err := lock.Decode("lock", data, lock.DecodeOptions{})
	if err != nil {
		b.Fatal(err)
	}
	size := l.Packs[0].Size

	timed := func(g *game) (wall, cpu time.Duration, out string) {
		c.take()
		cmd := exec.Command(binary, "sync", "--set", srv.URL+"/", "--config", g.config)
		t0 := time.Now()
		o, err := cmd.CombinedOutput()
		wall = time.Since(t0)
		if err != nil {
			b.Fatalf("sync --set: %v\n%s", err, o)
		}
		return wall, cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime(), string(o)
	}
	b.ResetTimer()
	deltaWall, deltaCPU, out := timed(machine)
	paths, served := c.take()
	if !strings.Contains(out, "rebuilt delta-pack from chunks") {
		b.Fatalf("the update was not rebuilt from chunks:\n%s", out)
	}
	whole := newGameIn(b, filepath.Join(work, "whole"))
	wholeWall, wholeCPU, _ := timed(whole)
	_, wholeServed := c.take()
	b.StopTimer()

	b.ReportMetric(float64(size)/(1<<20), "archive-MiB")
	b.ReportMetric(float64(changed)/(1<<20), "changed-MiB")
	b.ReportMetric(float64(served)/(1<<20), "served-MiB")
	b.ReportMetric(float64(served)/float64(changed), "served/changed")
	b.ReportMetric(100*float64(served)/float64(size), "served-%-of-archive")
	b.ReportMetric(float64(len(paths)), "requests")
	b.ReportMetric(deltaWall.Seconds(), "delta-sync-wall-s")
	b.ReportMetric(deltaCPU.Seconds(), "delta-sync-cpu-s")
	b.ReportMetric(float64(wholeServed)/(1<<20), "whole-served-MiB")
	b.ReportMetric(wholeWall.Seconds(), "whole-sync-wall-s")
	b.ReportMetric(wholeCPU.Seconds(), "whole-sync-cpu-s")
}
