package rejection

import (
	"testing"
	"time"
)

func TestReasonString(t *testing.T) {
	tests := []struct {
		name string
		r    Reason
		want string
	}{
		{"manifest", Reason{File: "forgepack.json", Path: "pieces[1].door.travel_m", Line: 12, Column: 7, Rule: "range", Value: "17", Message: "must be > 0 and ≤ 16"},
			"forgepack.json:12:7: pieces[1].door.travel_m: must be > 0 and ≤ 16, got 17"},
		{"entry", Reason{File: "content/x.dll", Path: "content/x.dll", Rule: "not allowed in a pack", Message: "not allowed in a pack"},
			"content/x.dll: not allowed in a pack"},
		{"whole pack", Reason{Rule: "downgrade", Path: "version", Message: "a 1.0.0 is older than the installed 1.1.0"},
			"version: a 1.0.0 is older than the installed 1.1.0"},
		{"message only", Reason{Message: "could not read the archive"}, "could not read the archive"},
	}
	for _, tt := range tests {
		if got := tt.r.String(); got != tt.want {
			t.Errorf("%s: String() = %q; want %q", tt.name, got, tt.want)
		}
	}
}

func TestNote(t *testing.T) {
	at := time.Date(2026, 3, 4, 5, 6, 7, 0, time.FixedZone("X", 3600))
	got := string(Note("bad.zip", "bad.zip", at, []Reason{
		{File: "content/x.dll", Path: "content/x.dll", Rule: "not allowed in a pack", Message: "not allowed in a pack"},
		{File: "forgepack.json", Path: "id", Line: 2, Column: 9, Rule: "pattern", Value: `"A"`, Message: "must be a pack slug"},
	}))
	want := "forgesync rejected bad.zip on 2026-03-04T04:06:07Z:\n" +
		"- content/x.dll: not allowed in a pack\n" +
		"- forgepack.json:2:9: id: must be a pack slug, got \"A\"\n" +
		"\nFix the pack and drop it again; `forgesync scan FILE` shows the same verdict.\n"
	if got != want {
		t.Errorf("Note() =\n%s\nwant\n%s", got, want)
	}
}

func TestEscape(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain text, ünïcode and ≤ signs", "plain text, ünïcode and ≤ signs"},
		{`C:\packs\a.zip`, `C:\packs\a.zip`},
		{"red\x1b[31mtext", `red\x1b[31mtext`},
		{"a\nb\r\tc\x00", `a\nb\r\tc\x00`},
		{"del\x7f", `del\x7f`},
		{"c1\u0085\u009b", `c1\u0085\u009b`},
		{"evil\u202eppa.zip", `evil\u202eppa.zip`},
		{"zw\u200bj\u2066x\u2069\ufeff", `zw\u200bj\u2066x\u2069\ufeff`},
		{"line\u2028para\u2029", `line\u2028para\u2029`},
		{"bad\xffutf8", `bad\xffutf8`},
	}
	for _, tt := range tests {
		if got := Escape(tt.in); got != tt.want {
			t.Errorf("Escape(%q) = %q; want %q", tt.in, got, tt.want)
		}
	}
}

func TestNoteEscapesControls(t *testing.T) {
	at := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	got := string(Note("evil\x1b]0;owned\x07.zip", "evil\x1b]0;owned\x07.zip", at, []Reason{
		{File: "content/a\n::error ::forged", Path: "content/a\n::error ::forged", Rule: "not allowed in a pack", Message: "not allowed in a pack"},
		{File: "forgepack.json", Path: "name", Line: 2, Column: 9, Rule: "pattern", Value: "\"\u202eA\"", Message: "must be plain"},
	}))
	want := "forgesync rejected evil\\x1b]0;owned\\x07.zip on 2026-03-04T05:06:07Z:\n" +
		"- content/a\\n::error ::forged: not allowed in a pack\n" +
		"- forgepack.json:2:9: name: must be plain, got \"\\u202eA\"\n" +
		"\nFix the pack and drop it again; `forgesync scan FILE` shows the same verdict.\n"
	if got != want {
		t.Errorf("Note() =\n%s\nwant\n%s", got, want)
	}
}

// TestNoteFooterFitsTheReason: an archive refused by the install rules
// alone is a valid pack: its note says so and what to do about the
// installed packs, not that scan shows the same verdict.
func TestNoteFooterFitsTheReason(t *testing.T) {
	at := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	head := "forgesync rejected a.zip on 2026-03-04T05:06:07Z:\n"
	same := Reason{Rule: "same-version-other-bytes", Message: "glass-works 1.0.0 is installed from other bytes"}
	down := Reason{Rule: "downgrade", Message: "glass-works 1.1.0 is installed, newer than 1.0.0"}
	tag := Reason{File: "forgepack.json", Path: "pieces[0].tag", Rule: "tag-owned", Message: "the tag is owned by foundry-wide"}
	doors := Reason{Rule: "door-limit", Message: "the enabled packs would have 257 doors, over 256"}
	bad := Reason{File: "forgepack.json", Path: "id", Rule: "pattern", Message: "must be a pack slug"}
	valid := "\nThe pack itself is valid (`forgesync scan` finds nothing wrong in it): the packs installed now refuse it.\n"
	cases := []struct {
		reasons []Reason
		want    string
	}{
		{[]Reason{same}, "- glass-works 1.0.0 is installed from other bytes\n" + valid +
			"To replace the installed copy with this one: forgesync install --force a-2.zip (in drop/rejected/)\n"},
		{[]Reason{down}, "- glass-works 1.1.0 is installed, newer than 1.0.0\n" + valid +
			"To go back to this older version: forgesync install --force a-2.zip (in drop/rejected/)\n"},
		{[]Reason{tag, doors}, "- forgepack.json: pieces[0].tag: the tag is owned by foundry-wide\n- the enabled packs would have 257 doors, over 256\n" + valid +
			"Remove the pack that owns the tag or class (forgesync remove ID), then: forgesync retry a-2.zip\n" +
			"Disable a pack with doors (forgesync disable ID), then: forgesync retry a-2.zip\n"},
		{[]Reason{bad, tag}, "- forgepack.json: id: must be a pack slug\n- forgepack.json: pieces[0].tag: the tag is owned by foundry-wide\n" +
			"\nFix the pack and drop it again; `forgesync scan FILE` shows the same verdict.\n"},
	}
	for _, tc := range cases {
		if got := string(Note("a.zip", "a-2.zip", at, tc.reasons)); got != head+tc.want {
			t.Errorf("Note(%v) =\n%s\nwant\n%s", tc.reasons, got, head+tc.want)
		}
	}
}
