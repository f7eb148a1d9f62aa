package pipeline

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/mjolnir-forge/forgesync/installer/intake"
	"github.com/mjolnir-forge/forgesync/installer/intake/intaketest"
	"github.com/mjolnir-forge/forgesync/installer/place"
	"github.com/mjolnir-forge/forgesync/installer/store"
	"github.com/mjolnir-forge/forgesync/internal/toolcheck"
)

// rejectedReasons returns the reasons of the named archive's rejection.
func rejectedReasons(sum *Summary, name string) []string {
	var out []string
	for _, o := range sum.Outcomes {
		if o.Archive == name && o.Result == ResultRejected {
			for _, r := range o.Reasons {
				out = append(out, r.Rule+": "+r.String())
			}
		}
	}
	return out
}

// TestInstallFailureIsRejection: an archive whose content the file system
// refuses is rejected with the reason, and the rest of the batch installs:
// here a name that, under a paks folder this deep, is longer than a path
// may be (ENAMETOOLONG). The old version stays whole.
func TestInstallFailureIsRejection(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the test's paks folder is as deep as Linux's PATH_MAX allows")
	}
	e := newEnv(t)
	// Just short of PATH_MAX (4,096 bytes): a.pak fits below, a name of
	// 184 bytes (within the name limits) does not.
	deep := filepath.Join(e.root, "paks")
	for len(deep) < 3890 {
		deep = filepath.Join(deep, strings.Repeat("d", min(100, 3890-len(deep))))
	}
	e.paks = deep
	p := e.open(t)
	e.dropPack(t, "blocked1.zip", spec{id: "blocked-pack", version: "1.0.0", content: map[string]string{"a.pak": "a1"}})
	mustSync(t, p, map[string]Result{"blocked1.zip": ResultInstalled})
	long := strings.Repeat("n", 180) + ".pak"
	e.dropPack(t, "blocked2.zip", spec{id: "blocked-pack", version: "2.0.0", content: map[string]string{"a.pak": "a2", long: "long"}})
	e.dropPack(t, "good.zip", spec{id: "good-pack", version: "1.0.0", content: map[string]string{"g.pak": "g"}})
	sum := mustSync(t, p, map[string]Result{"blocked2.zip": ResultRejected, "good.zip": ResultInstalled})
	if r := rejectedReasons(sum, "blocked2.zip"); len(r) != 1 || !strings.HasPrefix(r[0], RuleInstallFailed+": could not install the pack: ") ||
		!strings.Contains(r[0], "file name too long") {
		t.Errorf("reasons = %q; want the install failure, the name too long", r)
	}
	if _, err := os.Stat(filepath.Join(e.drop, rejectedDir, "blocked2.zip")); err != nil {
		t.Errorf("rejected archive not in drop/rejected: %v", err)
	}
	if got := listFiles(t, filepath.Join(e.state, store.ProcessingDir)); len(got) != 0 {
		t.Errorf("processing holds %v; want nothing", got)
	}
	if data, err := os.ReadFile(filepath.Join(e.paks, place.ContentRoot, "blocked-pack", "a.pak")); err != nil || string(data) != "a1" {
		t.Errorf("a.pak = %q, %v after the failed upgrade; want version 1's a1", data, err)
	}
	if inv := e.inv("installed.json"); !strings.Contains(inv, `"good-pack"`) || !strings.Contains(inv, `"1.0.0"`) || strings.Contains(inv, `"2.0.0"`) {
		t.Errorf("installed.json = %s; want good-pack and blocked-pack 1.0.0", inv)
	}
}

// TestPlayersFileWhereAFolderGoes: a file of the player's where a pack's
// folder must go is the machine's condition, not the archive's: the
// archive waits (in-the-way, naming the file), the file is untouched, the
// rest of the batch installs, and the archive installs once the file is
// moved away.
func TestPlayersFileWhereAFolderGoes(t *testing.T) {
	for _, at := range []string{place.ContentRoot + "/blocked-pack", place.ContentRoot} {
		t.Run(at, func(t *testing.T) {
			e := newEnv(t)
			e.dropPack(t, "blocked.zip", spec{id: "blocked-pack", version: "1.0.0", content: map[string]string{"a.pak": "a"}})
			e.dropPack(t, "good.zip", spec{id: "good-pack", version: "1.0.0", content: map[string]string{"g.pak": "g"}})
			mine := filepath.Join(e.paks, filepath.FromSlash(at))
			if err := os.MkdirAll(filepath.Dir(mine), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(mine, []byte("in the way"), 0o644); err != nil {
				t.Fatal(err)
			}
			p := e.open(t)
			want := map[string]Result{"blocked.zip": ResultWaiting, "good.zip": ResultInstalled}
			if at == place.ContentRoot {
				want["good.zip"] = ResultWaiting // every pack's folder is under it
			}
			sum := mustSync(t, p, want)
			o := outcome(t, sum, "blocked.zip")
			if o.Reasons[0].Rule != RuleInTheWay || !strings.Contains(o.Reasons[0].Message, mine+" is in the pack's way") {
				t.Fatalf("reasons = %+v; want in-the-way naming %s", o.Reasons, mine)
			}
			if data, _ := os.ReadFile(mine); string(data) != "in the way" {
				t.Fatalf("the player's file = %q; want it untouched", data)
			}
			if _, err := os.Stat(filepath.Join(e.drop, "blocked.zip")); err != nil {
				t.Errorf("the waiting archive is not back in drop: %v", err)
			}
			if err := os.Remove(mine); err != nil {
				t.Fatal(err)
			}
			want = map[string]Result{"blocked.zip": ResultInstalled}
			if at == place.ContentRoot {
				want["good.zip"] = ResultInstalled
			}
			mustSync(t, p, want)
		})
	}
}

// TestUnboundedVersionIsRejected: the version of issue 10 (300 bytes of
// build metadata) is refused by the manifest rule before anything is
// named after it, and a good pack in the batch installs.
func TestUnboundedVersionIsRejected(t *testing.T) {
	e := newEnv(t)
	e.dropPack(t, "long.zip", spec{id: "long-pack", version: "1.4.0+" + strings.Repeat("a", 300)})
	e.dropPack(t, "good.zip", spec{id: "good-pack", version: "1.0.0"})
	p := e.open(t)
	sum := mustSync(t, p, map[string]Result{"long.zip": ResultRejected, "good.zip": ResultInstalled})
	if r := rejectedReasons(sum, "long.zip"); !slices.ContainsFunc(r, func(s string) bool { return strings.Contains(s, "version") && strings.Contains(s, "64 bytes") }) {
		t.Errorf("reasons = %q; want the version length rule", r)
	}
	// Nothing is left to fail later passes.
	mustSync(t, p, map[string]Result{})
	if _, err := p.Packs(); err != nil {
		t.Errorf("Packs = %v", err)
	}
}

// TestLongDropNameIsRejectedBeside: a dropped name at the file system's
// limit still gets its rejection and a reasons file beside it.
func TestLongDropNameIsRejectedBeside(t *testing.T) {
	e := newEnv(t)
	name := strings.Repeat("é", 125) + ".zip" // 254 bytes
	e.dropPack(t, name, spec{id: "bad-pack", version: "1.0.0", doors: 1, bad: true})
	p := e.open(t)
	sum := mustSync(t, p, map[string]Result{name: ResultRejected})
	t.Logf("warnings: %q", sum.Warnings)
	got := listFiles(t, filepath.Join(e.drop, rejectedDir))
	if len(got) != 2 {
		t.Fatalf("drop/rejected holds %q; want the archive and its reasons", got)
	}
	for _, f := range got {
		if len(f) > maxNameBytes {
			t.Errorf("%q is %d bytes", f, len(f))
		}
	}
}

const envPoison = "FORGESYNC_TEST_POISON" // the env root for the poison child

// TestChildPoison dies as soon as it begins processing poison.zip: what a
// daemon killed by an archive does.
func TestChildPoison(t *testing.T) {
	root := os.Getenv(envPoison)
	if root == "" {
		t.Skip("runs only as the poison test's child process")
	}
	opts := envAt(root).options()
	opts.Step = func(name string) {
		if name == "attempt:poison.zip" {
			os.Exit(3)
		}
	}
	p, _, err := Open(t.Context(), opts)
	if err != nil {
		t.Fatalf("Open = %v", err)
	}
	p.SyncDrop(t.Context())
	p.Close()
}

// TestPoisonRejectedAfterThreeTries: an archive that kills the process
// three times is rejected at the next start without a fourth try, and the
// rest of the batch installs.
func TestPoisonRejectedAfterThreeTries(t *testing.T) {
	e := newEnv(t)
	e.dropPack(t, "poison.zip", spec{id: "poison-pack", version: "1.0.0"})
	e.dropPack(t, "good.zip", spec{id: "good-pack", version: "1.0.0"})
	for i := range MaxAttempts {
		cmd := exec.Command(os.Args[0], "-test.run=^TestChildPoison$", "-test.count=1")
		cmd.Env = append(os.Environ(), envPoison+"="+e.root)
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 3 {
			t.Fatalf("child %d = %v; want it to die at poison.zip\n%s", i+1, err, out)
		}
	}
	var steps []string
	opts := e.options()
	opts.Step = func(name string) { steps = append(steps, name) }
	p, sum, err := Open(t.Context(), opts)
	if err != nil {
		t.Fatalf("Open = %v", err)
	}
	defer p.Close()
	if slices.Contains(steps, "attempt:poison.zip") {
		t.Errorf("poison.zip was tried a fourth time (steps %v)", steps)
	}
	// good.zip was processed before each death, so it comes back under
	// its kept name, its install never committed.
	if got := results(sum); got["poison.zip"] != ResultRejected || !slices.Contains(slices.Collect(maps.Values(got)), ResultInstalled) {
		t.Fatalf("start-up results = %v; want poison rejected, good installed", got)
	}
	if r := rejectedReasons(sum, "poison.zip"); len(r) != 1 || !strings.HasPrefix(r[0], RuleFailedRepeatedly+": ") || !strings.Contains(r[0], "failed to process 3 times") {
		t.Errorf("reasons = %q; want the attempts rule", r)
	}
	if _, err := os.Stat(filepath.Join(e.state, attemptsFile)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("attempt counts kept after the archive left processing: %v", err)
	}
}

// TestUnpackerLimitIsRejection: an archive that breaks the unpacking
// child's memory limit (here a 7z with a 64 MiB dictionary, within the
// rules, against a limit lowered to 128 MiB, which the Go runtime maps
// in 64 MiB arenas) is rejected with the limit's
// rule, and the good pack of the same batch installs.
func TestUnpackerLimitIsRejection(t *testing.T) {
	toolcheck.Need(t, "7z")
	if raceEnabled {
		t.Skip("the race detector's shadow memory counts against the limit")
	}
	isolateFor(t, nil, new(intaketest.Isolation(intake.Isolation{Memory: 128 << 20})))
	e := newEnv(t)
	e.dropPack(t, "good.zip", spec{id: "good-pack", version: "1.0.0"})
	src := filepath.Join(t.TempDir(), "big.zip")
	spec{id: "big-pack", version: "1.0.0"}.zip(t, src)
	unz := t.TempDir()
	out := filepath.Join(t.TempDir(), "big.7z")
	for _, args := range [][]string{{"x", "-bd", "-bso0", "-o" + unz, src}, {"a", "-bd", "-bso0", "-mhc=off", "-m0=lzma2", out, unz + "/."}} {
		if b, err := exec.Command("7z", args...).CombinedOutput(); err != nil {
			t.Fatalf("7z %v: %v\n%s", args, err, b)
		}
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	// The LZMA2 coder's one property byte: 26 is a 64 MiB dictionary.
	off, size := binary.LittleEndian.Uint64(b[12:]), binary.LittleEndian.Uint64(b[20:])
	hdr := b[32+off : 32+off+size]
	i := bytes.Index(hdr, []byte{0x21, 0x21, 0x01})
	if i < 0 {
		t.Fatal("no LZMA2 coder in the header")
	}
	hdr[i+3] = 26
	binary.LittleEndian.PutUint32(b[28:], crc32.ChecksumIEEE(hdr))
	binary.LittleEndian.PutUint32(b[8:], crc32.ChecksumIEEE(b[12:32]))
	if err := os.WriteFile(filepath.Join(e.drop, "big.7z"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	p := e.open(t)
	sum := mustSync(t, p, map[string]Result{"big.7z": ResultRejected, "good.zip": ResultInstalled})
	if r := rejectedReasons(sum, "big.7z"); len(r) != 1 || !strings.HasPrefix(r[0], intake.RuleUnpackMemory) {
		t.Errorf("reasons = %q; want the memory limit", r)
	}
}
