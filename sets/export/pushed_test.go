package export

import (
	"strings"
	"testing"
	"time"
)

// TestWritePushed: a push says where the set went, who signed it, when it
// expires and what was sent, and ends with the reference that pins it.
func TestWritePushed(t *testing.T) {
	expires := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	p := Pushed{Tagged: "reg/sets:live", Reference: "reg/sets@sha256:ab", Fingerprint: "sha256:x", Packs: 2, SignedBy: "AB",
		Uploaded: 3, UploadedBytes: 300, Skipped: 1, Expires: &expires}
	want := "pushed reg/sets:live: 2 packs, sha256:x\n" +
		"signed by key AB (forgepacks.lock.minisig)\n" +
		expiresLine(expires) + "\n" +
		"uploaded 3 blobs (300 bytes); 1 were in the registry already\n" +
		"reg/sets@sha256:ab\n"
	var b strings.Builder
	if err := WritePushed(&b, p); err != nil || b.String() != want {
		t.Errorf("WritePushed = %v, %q; want %q", err, b.String(), want)
	}
}
