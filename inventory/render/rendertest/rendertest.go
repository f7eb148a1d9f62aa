// Package rendertest owns synthetic sets of installed packs for tests and
// benchmarks of the inventory files — valid by construction, deterministic,
// and shaped like real packs (lifts, doors up to the global limit, surfaces,
// plain pieces) — and the CPU-time metric those benchmarks report.
package rendertest

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"testing"
	"time"

	"github.com/mjolnir-forge/forgesync/inventory"
)

// PiecesPerPack is how many pieces each pack of [Packs] holds.
const PiecesPerPack = 10

// Packs returns n enabled packs of PiecesPerPack pieces each, with ids
// bench-00000, bench-00001, …: per pack two lift blocks, two panels that
// carry doors until the set holds inventory.MaxDoorsInstalled of them, a
// panel with surfaces and five plain blocks. Every manifest passes
// inventory.Decode in its normalized form.
func Packs(n int) []inventory.InstalledPack {
	packs := make([]inventory.InstalledPack, n)
	doors := 0
	for i := range packs {
		id := fmt.Sprintf("bench-%05d", i)
		m := &inventory.Manifest{
			Schema:  inventory.SchemaVersion,
			ID:      id,
			Version: fmt.Sprintf("1.%d.%d", i%7, i%3),
			Name:    "Bench pack " + id,
			Authors: []string{"Bench"},
			Pieces:  make([]inventory.Piece, 0, PiecesPerPack),
		}
		if i%2 == 0 {
			m.Description = "Synthetic pack \"" + id + "\" for benchmarks."
		}
		piece := func(pid string, kind inventory.Kind, folder, asset string, dim inventory.Vec3) *inventory.Piece {
			m.Pieces = append(m.Pieces, inventory.Piece{
				ID:         pid,
				Kind:       kind,
				Tag:        `mjolnir\forge\` + id + `\` + pid,
				Class:      "/Game/MJOLNIR/Forge/" + id + "/" + folder + "/" + asset + "." + asset + "_C",
				Dimensions: dim,
			})
			return &m.Pieces[len(m.Pieces)-1]
		}
		for j := range 2 {
			p := piece(fmt.Sprintf("lift_%d", j), inventory.KindBlock, "Blocks", fmt.Sprintf("BP_Lift%d", j), inventory.Vec3{4, 4, 0.5})
			p.Lift = &inventory.Lift{
				OffsetM:         inventory.Vec3{0.5 * float64(j), -1.25, 0.45},
				SizeM:           inventory.Vec3{4, 4, 3.5 + float64(i%5)},
				Direction:       inventory.Vec3{0, 0.6 * float64(j), 1 - 0.2*float64(j)},
				AccelerationMS2: 20 - 7.5*float64(j),
				MaxSpeedMS:      4.5,
				NegatesGravity:  j == 0,
			}
		}
		for j := range 2 {
			p := piece(fmt.Sprintf("gate_%d", j), inventory.KindPanel, "Panels", fmt.Sprintf("BP_Gate%d", j), inventory.Vec3{4 + 6*float64(j), 0.5, 4 + 3.5*float64(j)})
			if doors < inventory.MaxDoorsInstalled {
				doors++
				p.Door = &inventory.Door{TravelM: 4 + 2*float64(j), SpeedMS: 4, TriggerSizeM: inventory.Vec3{8 + 4*float64(j), 16 + 4*float64(j), 6 + 2*float64(j)}, HoldOpenS: 2}
			}
		}
		glass := piece("wall_glass", inventory.KindPanel, "Panels", "BP_WallGlass", inventory.Vec3{4, 0.25, 3})
		glass.Surfaces = []inventory.Surface{{Slot: 0, Profile: inventory.ProfileGlassCyan}, {Slot: 3, Profile: inventory.ProfileTeleporterGreen}}
		for j := range 5 {
			piece(fmt.Sprintf("deck_%d", j), inventory.KindBlock, "Blocks", fmt.Sprintf("BP_Deck%d", j), inventory.Vec3{2, 2 + float64(j), 0.25})
		}
		sum := sha256.Sum256([]byte(id))
		packs[i] = inventory.InstalledPack{Manifest: m, Enabled: true, ArchiveSHA256: hex.EncodeToString(sum[:])}
	}
	return packs
}

// ReportCPU adds the metrics cpu-ns/op and cpu-ns/pack (n packs) to b: the
// CPU time of the whole process, garbage collection included, since start
// (a [CPUTime] reading) divided by the iterations run. On a machine shared
// with other work, wall time says little; CPU time does not depend on the
// neighbours.
func ReportCPU(b *testing.B, start time.Duration, iterations, n int) {
	now, ok := CPUTime()
	if !ok || iterations == 0 {
		return
	}
	per := float64(now-start) / float64(iterations)
	b.ReportMetric(per, "cpu-ns/op")
	b.ReportMetric(per/float64(n), "cpu-ns/pack")
}
