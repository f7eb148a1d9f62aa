package intake

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzExtractNames puts two fuzzed names into an otherwise good zip and
// checks the promises of Extract whatever they are: nothing is written
// outside staging, a rejection leaves no staging folder, and an accepted
// pack lists only files that exist below its root under names CheckName
// accepts.
func FuzzExtractNames(f *testing.F) {
	seeds := nameSeeds(f)
	for i, s := range seeds {
		f.Add(s, seeds[(i+1)%len(seeds)])
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		es := with(file(a, "a"), file(b, "b"))
		archive := writeArchive(t, "p.zip", zipBytes(t, es))
		iso := newIsolated(t)
		st, err := testExtract(t.Context(), archive, iso.staging, DefaultLimits(), nil)
		if err != nil {
			if !errors.Is(err, errRejected) {
				t.Fatalf("Extract(%q, %q) = %v; want success or a rejection", a, b, err)
			}
			iso.verify(t, true)
			return
		}
		defer st.Remove()
		iso.verify(t, false)
		if !strings.HasPrefix(st.Root, st.Dir) {
			t.Fatalf("Root %s is not below %s", st.Root, st.Dir)
		}
		for _, fl := range st.Files {
			if ps := CheckName(fl.Path, DefaultLimits()); len(ps) > 0 {
				t.Fatalf("accepted file %q breaks %v", fl.Path, ps)
			}
			info, err := os.Lstat(filepath.Join(st.Root, filepath.FromSlash(fl.Path)))
			if err != nil || !info.Mode().IsRegular() || info.Size() != fl.Size {
				t.Fatalf("accepted file %q: %v, %v", fl.Path, info, err)
			}
		}
	})
}
