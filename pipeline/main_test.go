package pipeline

import (
	"os"
	"sync/atomic"
	"testing"

	"github.com/mjolnir-forge/forgesync/installer/intake"
	"github.com/mjolnir-forge/forgesync/installer/intake/intaketest"
)

// Every archive of these tests is unpacked in a process of its own, as
// the program does: this test binary, re-run as the child.
func TestMain(m *testing.M) {
	intaketest.RunChildIfAsked()
	useIsolation(testIsolation())
	os.Exit(m.Run())
}

// testExtractor is the Extractor of the pipelines the tests open
// (env.options): this test binary as the child, unless a test swaps it.
var testExtractor atomic.Pointer[intake.Extractor]

// useIsolation makes the pipelines opened from now on unpack in the
// children iso starts.
func useIsolation(iso *intake.Isolation) *intake.Extractor {
	x, err := intake.NewExtractor(*iso)
	if err != nil {
		panic(err)
	}
	testExtractor.Store(x)
	return x
}

// isolateFor runs the rest of the test with the children iso starts, for
// p and the pipelines opened from now on, and restores the tests' own.
func isolateFor(t *testing.T, p *Pipeline, iso *intake.Isolation) {
	t.Helper()
	old := testExtractor.Load()
	x := useIsolation(iso)
	if p != nil {
		p.opts.Extractor = x
	}
	t.Cleanup(func() {
		testExtractor.Store(old)
		if p != nil {
			p.opts.Extractor = old
		}
	})
}

// testIsolation runs this test binary as the child; under the race
// detector, whose shadow memory counts against it, without a memory limit.
func testIsolation() *intake.Isolation {
	iso := new(intaketest.Isolation(intake.Isolation{}))
	if raceEnabled {
		iso.Memory = 1 << 40
	}
	return iso
}

// skipUnderRace skips a long table of sequential transactions (a crash at
// every step, every damage of every state file) under the race detector:
// each runs one transaction at a time, so the detector has nothing to find
// that the tests of the runner do not cover, and it would cost CI minutes.
// The plain run of the suite runs them in full.
func skipUnderRace(t *testing.T) {
	t.Helper()
	if raceEnabled {
		t.Skip("sequential transactions: covered by the plain run, not worth the race detector's minutes")
	}
}
