package text

import "testing"

func TestCount(t *testing.T) {
	for _, tc := range []struct{ got, want string }{
		{Count(0, "archive"), "0 archives"},
		{Count(1, "archive"), "1 archive"},
		{Count(2, "lift"), "2 lifts"},
		{Of(1, "entry", "entries"), "1 entry"},
		{Of(3, "entry", "entries"), "3 entries"},
		{Count64(1, "byte"), "1 byte"},
		{Count64(1<<40, "byte"), "1099511627776 bytes"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}
