package export

import (
	"fmt"
	"io"
	"time"

	"github.com/mjolnir-forge/forgesync/sets/lock"
)

// Pushed is what `forgesync export oci://…` says: where the set went, the
// reference that pins it, and what was uploaded.
type Pushed struct {
	Tagged        string `json:"tagged"`
	Reference     string `json:"reference"`
	Fingerprint   string `json:"fingerprint"`
	Packs         int    `json:"packs"`
	SignedBy      string `json:"signed_by"`
	Uploaded      int    `json:"uploaded_blobs"`
	UploadedBytes int64  `json:"uploaded_bytes"`
	Skipped       int    `json:"skipped_blobs"`
	// Serial and Expires are the lock's (SPEC §10.2c).
	Serial  int64      `json:"serial,omitempty"`
	Expires *time.Time `json:"expires,omitempty"`
}

// Report returns what the push of p says.
func (p *PushedSet) Report() Pushed {
	out := Pushed{Tagged: p.Pushed.Tagged.String(), Reference: p.Pushed.Reference.String(), Fingerprint: p.Lock.Fingerprint(),
		Packs: len(p.Lock.Packs), SignedBy: p.SignedBy, Uploaded: p.Pushed.Uploaded, UploadedBytes: p.Pushed.UploadedBytes, Skipped: p.Pushed.Skipped,
		Serial: p.Lock.Serial}
	if !p.Lock.Expires.IsZero() {
		out.Expires = &p.Lock.Expires
	}
	return out
}

// WritePushed writes what was pushed as text; its last line is the
// reference that pins the set, for scripts to take.
func WritePushed(w io.Writer, p Pushed) error {
	fmt.Fprintf(w, "pushed %s: %d packs, %s\n", p.Tagged, p.Packs, p.Fingerprint)
	if p.SignedBy != "" {
		fmt.Fprintf(w, "signed by key %s (%s)\n", p.SignedBy, lock.SignatureName)
	}
	if p.Expires != nil {
		fmt.Fprintln(w, expiresLine(*p.Expires))
	}
	fmt.Fprintf(w, "uploaded %d blobs (%d bytes); %d were in the registry already\n", p.Uploaded, p.UploadedBytes, p.Skipped)
	_, err := fmt.Fprintln(w, p.Reference)
	return err
}
