package intake

import (
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestWatchDataSamplesCommittedData watches this process: the peak is at
// least the VmData the system reports before the watch began (what
// RLIMIT_DATA counts), and not more than that plus the stack and what the
// test allocates meanwhile.
func TestWatchDataSamplesCommittedData(t *testing.T) {
	vmData := func() int64 {
		data, err := os.ReadFile("/proc/self/status")
		if err != nil {
			t.Fatal(err)
		}
		_, rest, _ := strings.Cut(string(data), "VmData:")
		kb, err := strconv.ParseInt(strings.Fields(rest)[0], 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		return kb << 10
	}
	before := vmData()
	stop := watchData(os.Getpid())
	peak := stop()
	after := vmData()
	if peak < before || peak > after+64<<20 {
		t.Fatalf("watchData peak = %d; VmData was %d before and %d after", peak, before, after)
	}
}
