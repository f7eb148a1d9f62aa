package deploy

import (
	"os"
	"path/filepath"
	"testing"
)

// TestUndeploy: the deployed files that still hold forgesync's bytes go,
// one the player changed stays and is named, a file forgesync never wrote
// beside them is not touched, and the ledger goes.
func TestUndeploy(t *testing.T) {
	state, mods := t.TempDir(), t.TempDir()
	d := &Deployer{StateDir: state}
	reps, err := d.DeployLua(t.Context(), mods)
	if err != nil || len(reps) < 2 {
		t.Fatalf("DeployLua = %v, %v", reps, err)
	}
	changed := reps[0].Path
	if err := os.WriteFile(changed, []byte("-- my edit\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	mine := filepath.Join(filepath.Dir(changed), "mine.lua")
	if err := os.WriteFile(mine, []byte("-- mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	u, err := Undeploy(state)
	if err != nil {
		t.Fatal(err)
	}
	if len(u.Removed) != len(reps)-1 || len(u.Kept) != 1 || u.Kept[0] != changed+": changed since forgesync wrote it" {
		t.Errorf("Undeploy = removed %q, kept %q; want all but %s removed, it kept", u.Removed, u.Kept, changed)
	}
	for _, r := range reps[1:] {
		if _, err := os.Stat(r.Path); err == nil {
			t.Errorf("Undeploy left %s", r.Path)
		}
	}
	for p, want := range map[string]string{changed: "-- my edit\n", mine: "-- mine\n"} {
		if got, err := os.ReadFile(p); err != nil || string(got) != want {
			t.Errorf("Undeploy changed %s: %q, %v", p, got, err)
		}
	}
	if _, err := os.Stat(filepath.Join(state, ledgerName)); err == nil {
		t.Error("Undeploy kept the ledger")
	}
	if u, err := Undeploy(state); err != nil || len(u.Removed)+len(u.Kept) != 0 {
		t.Errorf("Undeploy again = %+v, %v; want nothing to do", u, err)
	}
}
