package packset

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"aead.dev/minisign"
)

// TestDiffLock compares a machine with an exported, signed set: trusted
// or not, equal or not, and the state is read only once the lock is good.
func TestDiffLock(t *testing.T) {
	kept, _ := keptPacks(t)
	pub, priv, err := minisign.GenerateKey(nil)
	if err != nil {
		t.Fatal(err)
	}
	pubText, _ := pub.MarshalText()
	out := t.TempDir()
	l, err := Export(t.Context(), out, "league", kept, "", &priv)
	if err != nil {
		t.Fatal(err)
	}
	var all []Installed
	for _, k := range kept {
		all = append(all, Installed{ID: k.ID, Version: k.Version, SHA256: k.SHA256, Enabled: true})
	}
	have := func(packs []Installed) func(context.Context) ([]Installed, error) {
		return func(context.Context) ([]Installed, error) { return packs, nil }
	}
	keyID := KeyID(pub.ID())
	tests := []struct {
		name    string
		trusted []string
		have    []Installed
		want    string
	}{
		{"trusted and equal", []string{string(pubText)}, all,
			"set " + l.Fingerprint() + " signed by trusted key " + keyID + "\nthe machine equals the set (2 packs)\n"},
		{"untrusted and one missing", nil, all[:1],
			all[1].ID + ": missing (the set pins " + all[1].Version + ")\nset " + l.Fingerprint() + " signed by key " + keyID + " (not checked: no [sets] trusted_keys)\n" +
				"the machine (" + MachineFingerprint(all[:1]) + ") differs from the set in 1 pack\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep, err := DiffLock(t.Context(), nil, out, tt.trusted, have(tt.have))
			if err != nil {
				t.Fatal(err)
			}
			if rep.Source != filepath.Join(out, LockName) || rep.Name != "league" || rep.Pinned != 2 || rep.Equal != (len(tt.have) == 2) {
				t.Errorf("DiffLock = %+v", rep)
			}
			var b strings.Builder
			if err := WriteDiff(&b, rep); err != nil || !strings.HasSuffix(b.String(), tt.want) {
				t.Errorf("WriteDiff =\n%s\nwant it to end in\n%s", b.String(), tt.want)
			}
		})
	}
	// A lock that cannot be read never opens the state.
	opened := false
	_, err = DiffLock(t.Context(), nil, filepath.Join(t.TempDir(), "none.lock"), nil, func(context.Context) ([]Installed, error) {
		opened = true
		return nil, errors.New("opened")
	})
	if err == nil || opened {
		t.Errorf("DiffLock(missing) = %v, state opened %v; want an error before the state", err, opened)
	}
}

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
