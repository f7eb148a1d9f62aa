package daemon

import (
	"os"
	"testing"

	"github.com/mjolnir-forge/forgesync/installer/intake/intaketest"
)

// testExtractor unpacks every archive of these tests in a process of its
// own, as the program does: this test binary, re-run as the child.
var testExtractor = intaketest.Extractor()

func TestMain(m *testing.M) {
	intaketest.RunChildIfAsked()
	os.Exit(m.Run())
}
