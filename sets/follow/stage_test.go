package follow

import (
	"strings"
	"testing"

	"github.com/mjolnir-forge/forgesync/installer/store"
	"github.com/mjolnir-forge/forgesync/sets/lock"
)

// TestStageName: a stage's profile is named as asked, else after the set
// (made a profile name the store accepts), else after its fingerprint.
func TestStageName(t *testing.T) {
	pins := []lock.Entry{{ID: "alpha-gates", Version: "1.0.0", SHA256: strings.Repeat("a", 64)}}
	byPrint := "set-" + strings.TrimPrefix(lock.Fingerprint(pins), "sha256:")[:12]
	tests := []struct{ asked, set, want string }{
		{"league", "Foundry League", "league"},
		{"", "Foundry League, season 3", "Foundry-League-season-3"},
		{"", "  ★ ☆ … ", byPrint},
		{"", "Liga Ünïcode", "Liga-n-code"}, // other characters become '-'; the player may --as
		{"", "--league_s3.--", "league_s3"},
		{"", "", byPrint},
		{"", strings.Repeat("abcdefghij", 7) + "!", strings.Repeat("abcdefghij", 6) + "abcd"},
	}
	for _, tt := range tests {
		l := &lock.Lock{Name: tt.set, Packs: []lock.Pack{{ID: pins[0].ID, Version: pins[0].Version, SHA256: pins[0].SHA256, Size: 1}}}
		got := stageName(tt.asked, l)
		if got != tt.want {
			t.Errorf("stageName(%q, set %q) = %q; want %q", tt.asked, tt.set, got, tt.want)
		}
		if err := store.CheckProfileName(got); err != nil {
			t.Errorf("stageName(%q, set %q) = %q, which the store refuses: %v", tt.asked, tt.set, got, err)
		}
	}
}
