package export

import (
	"strings"
	"testing"
)

func TestWriteWritten(t *testing.T) {
	tests := []struct {
		w    Written
		want string
	}{
		{Written{Lock: "f.lock", Fingerprint: "sha256:x", Packs: 3}, "wrote f.lock: 3 packs, sha256:x\n"},
		{Written{Lock: "f.lock", Fingerprint: "sha256:x", Packs: 1, SignedBy: "AB"}, "wrote f.lock: 1 packs, sha256:x\nsigned by key AB (f.lock.minisig)\n"},
		{Written{Lock: "f.lock", Fingerprint: "sha256:x", Packs: 2, Repaired: 1}, "wrote f.lock: 2 packs, sha256:x\nrepaired 1 damaged file in the folder (archives, chunk indexes or chunks that had lost their bytes)\n"},
	}
	for _, tt := range tests {
		var b strings.Builder
		if err := WriteWritten(&b, tt.w); err != nil || b.String() != tt.want {
			t.Errorf("WriteWritten(%+v) = %v, %q; want %q", tt.w, err, b.String(), tt.want)
		}
	}
}

func TestWriteWrittenRemoved(t *testing.T) {
	var b strings.Builder
	WriteWritten(&b, Written{Lock: "site/forgepacks.lock", Fingerprint: "sha256:x", Packs: 2, Removed: []string{"aa.zip"}})
	want := "wrote site/forgepacks.lock: 2 packs, sha256:x\nremoved 1 archive the set no longer pins: aa.zip\n"
	if b.String() != want {
		t.Errorf("WriteWritten = %q; want %q", b.String(), want)
	}
	b.Reset()
	WriteWritten(&b, Written{Lock: "f.lock", Fingerprint: "sha256:x", Packs: 1, Removed: []string{"aa.zip"}, RemovedIndexes: []string{"aa.caibx"}})
	want = "wrote f.lock: 1 packs, sha256:x\nremoved 1 archive the set no longer pins: aa.zip\nremoved 1 chunk index the set no longer pins: aa.caibx\n"
	if b.String() != want {
		t.Errorf("WriteWritten with an index = %q; want %q", b.String(), want)
	}
	b.Reset()
	WriteWritten(&b, Written{Lock: "f.lock", Fingerprint: "sha256:x", Packs: 0, Removed: []string{"aa.zip", "bb.7z"}})
	if !strings.HasSuffix(b.String(), "removed 2 archives the set no longer pins: aa.zip, bb.7z\n") {
		t.Errorf("WriteWritten = %q", b.String())
	}
}
