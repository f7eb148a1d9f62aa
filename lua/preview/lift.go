package preview

import (
	"fmt"

	"github.com/mjolnir-forge/forgesync/inventory"
)

// LiftOf returns the lift of the piece named piece in the manifest m, as
// the preview rides it; an error says when m has no such piece, or when
// the piece has no lift.
func LiftOf(m *inventory.Manifest, piece string) (Lift, error) {
	for _, p := range m.Pieces {
		if p.ID != piece {
			continue
		}
		l := p.Lift
		if l == nil {
			return Lift{}, fmt.Errorf("piece %s of %s has no lift", p.ID, m.ID)
		}
		return Lift{OffsetM: l.OffsetM, SizeM: l.SizeM, Direction: l.Direction, AccelerationMS2: l.AccelerationMS2,
			MaxSpeedMS: l.MaxSpeedMS, NegatesGravity: l.NegatesGravity, BlockM: p.Dimensions}, nil
	}
	return Lift{}, fmt.Errorf("%s has no piece %q", m.ID, piece)
}
