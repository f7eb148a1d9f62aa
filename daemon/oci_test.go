package daemon

import (
	"strings"
	"testing"
)

// TestSetSourceChecked: a [sets] source that cannot name a set (an oci://
// reference without a tag) fails when the set's parts are built, naming
// the key, rather than at every check; every fetch shares the machine's
// one registry client (and so its tokens).
func TestSetSourceChecked(t *testing.T) {
	opts := game(t)
	opts.Config.Sets.Source = "oci://ghcr.io/league/packs"
	m := New(opts)
	defer m.Close()
	if _, err := m.setOptions(); err == nil || !strings.Contains(err.Error(), "[sets] source") || !strings.Contains(err.Error(), "name a tag") {
		t.Fatalf("setOptions(oci source without a tag) = %v; want an error naming [sets] source", err)
	}
	opts.Config.Sets.Source = "oci://ghcr.io/league/packs:live"
	if _, err := m.setOptions(); err != nil {
		t.Fatalf("setOptions(oci source) = %v", err)
	}
	if f := m.Fetcher(); f.Registry == nil || f.Registry != m.Registry() {
		t.Errorf("Fetcher().Registry = %p; want the machine's one registry client %p", f.Registry, m.Registry())
	}
}
