package view

import (
	"io"
	"strings"

	"github.com/mjolnir-forge/forgesync/api"
	"github.com/mjolnir-forge/forgesync/internal/text"
)

// WriteStaged writes a stage's result (`forgesync stage`): the set and its
// signer, each archive fetched, and the profile it became.
func WriteStaged(w io.Writer, res *api.SetStageResult) error {
	var b strings.Builder
	signed := "unsigned"
	if res.SignedBy != "" {
		signed = "signed by key " + res.SignedBy
	}
	printf(&b, "set %s (%s)\n", res.Fingerprint, signed)
	for _, d := range res.Downloaded {
		if x := d.Delta; x != nil {
			printf(&b, "rebuilt %s from chunks (%s): %s from earlier archives, %s on the wire\n",
				d.Pack, text.Count64(d.Bytes, "byte"), text.Count64(x.SeedBytes, "byte"), text.Count64(x.WireBytes, "byte"))
			continue
		}
		printf(&b, "downloaded %s from %s (%s)\n", d.Pack, d.URL, text.Count64(d.Bytes, "byte"))
	}
	printf(&b, "staged as profile %s: %s fetched, %s in all; nothing installed changed\n",
		res.Name, text.Count64(res.Bytes, "byte"), text.Count64(res.SetBytes, "byte"))
	printf(&b, "apply it with no network: forgesync profile switch %s (or POST /v1/set/apply {\"fingerprint\": %q})\n", res.Name, res.Fingerprint)
	_, err := io.WriteString(w, b.String())
	return err
}
