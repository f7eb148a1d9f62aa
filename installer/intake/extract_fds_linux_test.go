package intake

import (
	"fmt"
	"syscall"
	"testing"
)

// TestExtractWithFewDescriptors: a process allowed few descriptors (a
// service with a hard limit of 256) keeps fewer written files open, and
// still unpacks a pack of more files than that.
func TestExtractWithFewDescriptors(t *testing.T) {
	var old syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &old); err != nil {
		t.Fatal(err)
	}
	low := old
	low.Cur = 256
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &low); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Setrlimit(syscall.RLIMIT_NOFILE, &old) })
	if keepOpen() != 64 {
		t.Fatalf("keepOpen() = %d with 256 descriptors; want 64", keepOpen())
	}
	es := goodPack("")
	for i := range 400 {
		es = append(es, file(fmt.Sprintf("content/f%05d.sig", i), "sig"))
	}
	st, err := extractInProcess(t.Context(), writeArchive(t, "p.zip", zipBytes(t, es)), t.TempDir(), DefaultLimits(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Files) != len(goodFiles())+400 {
		t.Errorf("%d files staged; want %d", len(st.Files), len(goodFiles())+400)
	}
}
