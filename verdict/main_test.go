package verdict

import (
	"os"
	"testing"

	"github.com/mjolnir-forge/forgesync/intake"
)

// envUnpackChild makes this test binary the unpacking child of the
// tests' Extractor: every archive is unpacked in a process of its own, as
// the program does.
const envUnpackChild = "FORGESYNC_TEST_UNPACK_CHILD"

// testExtractor runs this test binary as the child, without a memory
// limit (the race detector's shadow memory would count against it; the
// limits are intake's tests' business).
var testExtractor *intake.Extractor

func TestMain(m *testing.M) {
	if os.Getenv(envUnpackChild) != "" {
		os.Exit(intake.RunChild(os.Stdin, os.Stdout))
	}
	x, err := intake.NewExtractor(intake.Isolation{Command: []string{os.Args[0]}, Env: []string{envUnpackChild + "=1"}, Memory: 1 << 40})
	if err != nil {
		panic(err)
	}
	testExtractor = x
	os.Exit(m.Run())
}
