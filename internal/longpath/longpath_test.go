package longpath

import (
	"strings"
	"testing"
)

func TestExtend(t *testing.T) {
	long := strings.Repeat(`a\`, 130) + "drop" // 264 characters
	for _, tc := range []struct{ in, want string }{
		{`C:\Games\drop`, `C:\Games\drop`},
		{`C:\` + long, `\\?\C:\` + long},
		{`c:/` + strings.ReplaceAll(long, `\`, "/"), `\\?\c:\` + long},
		{`C:\x\..\.\` + long, `\\?\C:\` + long},
		{`\\nas\share\` + long, `\\?\UNC\nas\share\` + long},
		{`\\?\C:\` + long, `\\?\C:\` + long},
		{`\\.\pipe\` + long, `\\.\pipe\` + long},
		{long, long},             // relative: cannot be extended
		{`\` + long, `\` + long}, // root-relative: neither
	} {
		if got := Extend(tc.in); got != tc.want {
			t.Errorf("Extend(%q) = %q; want %q", tc.in, got, tc.want)
		}
	}
}

func TestStrip(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`\\?\C:\Games\drop\a.zip`, `C:\Games\drop\a.zip`},
		{`\\?\UNC\nas\share\a.zip`, `\\nas\share\a.zip`},
		{`C:\Games\drop`, `C:\Games\drop`},
		{`\\?\Volume{1234}\x`, `\\?\Volume{1234}\x`},
		{"/home/ana/drop", "/home/ana/drop"},
	} {
		if got := Strip(tc.in); got != tc.want {
			t.Errorf("Strip(%q) = %q; want %q", tc.in, got, tc.want)
		}
	}
	long := `C:\` + strings.Repeat(`b\`, 140) + "x.zip"
	if got := Strip(Extend(long)); got != long {
		t.Errorf("Strip(Extend(%q)) = %q; want it back", long, got)
	}
}
