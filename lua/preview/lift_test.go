package preview

import (
	"os"
	"testing"

	"github.com/mjolnir-forge/forgesync/inventory"
)

func TestLiftOf(t *testing.T) {
	data, err := os.ReadFile("../../cmd/forgesync/examples/foundry-wide/forgepack.json")
	if err != nil {
		t.Fatal(err)
	}
	m, err := inventory.Decode("forgepack.json", data)
	if err != nil {
		t.Fatal(err)
	}
	var lift, plain string
	for _, p := range m.Pieces {
		if p.Lift != nil && lift == "" {
			lift = p.ID
		}
		if p.Lift == nil && plain == "" {
			plain = p.ID
		}
	}
	if l, err := LiftOf(m, lift); err != nil || l.MaxSpeedMS <= 0 || l.BlockM[2] <= 0 {
		t.Errorf("LiftOf(%s) = %+v, %v", lift, l, err)
	}
	if _, err := LiftOf(m, plain); err == nil || err.Error() != "piece "+plain+" of foundry-wide has no lift" {
		t.Errorf("LiftOf(%s) = %v; want no lift", plain, err)
	}
	if _, err := LiftOf(m, "nope"); err == nil || err.Error() != `foundry-wide has no piece "nope"` {
		t.Errorf("LiftOf(nope) = %v", err)
	}
}
