package lock

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mjolnir-forge/forgesync/sets/settest"
)

// TestDecodeFreshness: serial and expires are optional lock text, read
// from TOML (an offset date-time, or a string) and JSON alike, written
// back by Encode, and outside the fingerprint; what they may not be is
// refused with its line.
func TestDecodeFreshness(t *testing.T) {
	at := time.Date(2030, 1, 31, 12, 0, 0, 0, time.UTC)
	for _, text := range []string{
		settest.Edit(t, "version = 1\n", "version = 1\nserial = 1769000000\nexpires = 2030-01-31T12:00:00Z\n"),
		settest.Edit(t, "version = 1\n", "version = 1\nserial = 1769000000\nexpires = 2030-01-31T13:00:00+01:00\n"),
		settest.Edit(t, "version = 1\n", "version = 1\nserial = 1769000000\nexpires = \"2030-01-31T12:00:00Z\"\n"),
	} {
		l, err := Decode(LockName, []byte(text), DecodeOptions{})
		if err != nil || l.Serial != 1769000000 || !l.Expires.Equal(at) || l.Expires.Location() != time.UTC || l.Fingerprint() != settest.FpAB {
			t.Fatalf("Decode(%q) = %+v, %v; want serial 1769000000, expires %s, fingerprint %s", text, l, err, at, settest.FpAB)
		}
		again, err := Encode(l)
		if err != nil || !strings.Contains(string(again), "serial = 1769000000\nexpires = 2030-01-31T12:00:00Z\n") {
			t.Fatalf("Encode = %s, %v", again, err)
		}
		back, err := Decode(LockName, again, DecodeOptions{})
		if err != nil || back.Serial != l.Serial || !back.Expires.Equal(l.Expires) {
			t.Errorf("Decode(Encode) = %+v, %v; want the same serial and expiry", back, err)
		}
	}
	l, err := DecodeJSON("body", []byte(`{"format":"forgepacks-lock","version":1,"serial":7,"expires":"2030-01-31T12:00:00Z"}`), DecodeOptions{})
	if err != nil || l.Serial != 7 || !l.Expires.Equal(at) {
		t.Errorf("DecodeJSON = %+v, %v; want serial 7, expires %s", l, err, at)
	}
	if l, err := Decode(LockName, []byte(settest.GoodLock), DecodeOptions{}); err != nil || l.Serial != 0 || !l.Expires.IsZero() {
		t.Errorf("Decode(a lock without them) = %+v, %v; want no serial and no expiry", l, err)
	}

	tests := []struct{ name, text, want string }{
		{"zero serial", "serial = 0", "serial: must be a whole number from 1"},
		{"negative serial", "serial = -3", "found -3"},
		{"string serial", `serial = "7"`, `found "7"`},
		{"float serial", "serial = 7.5", "found 7.5 (a float)"},
		{"local date-time", "expires = 2030-01-31T12:00:00", "expires: must be an RFC 3339 time with its offset"},
		{"local date", "expires = 2030-01-31", "without an offset"},
		{"not a time", `expires = "next tuesday"`, `found "next tuesday"`},
		{"a number", "expires = 30", "found 30"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Decode("set.lock", []byte(settest.Edit(t, "version = 1\n", "version = 1\n"+tc.text+"\n")), DecodeOptions{})
			if !errors.Is(err, errInvalidLock) || !strings.HasPrefix(err.Error(), "set.lock:3: ") || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Decode(%s) = %v; want set.lock:3: …%s", tc.text, err, tc.want)
			}
		})
	}
}

// TestCheckSerialAndExpiry: a lower serial than the freshest applied from
// the source, none where one was applied, or the same with other packs is
// a replay naming both serials; a lock at or past its expires is a freeze;
// anything else passes, and a source nothing with a serial came from takes
// any lock.
func TestCheckSerialAndExpiry(t *testing.T) {
	lock := func(serial int64) *Lock {
		return &Lock{Serial: serial, Packs: []Pack{{ID: "alpha-pack", Version: "1.0.0", SHA256: settest.HashA, Size: 1}}}
	}
	fp := lock(0).Fingerprint()
	last := Applied{Serial: 20, Fingerprint: fp}
	tests := []struct {
		name string
		l    *Lock
		last Applied
		want string // "" passes
	}{
		{"lower", lock(19), last, "its serial 19 is lower than serial 20 (" + fp + "), the highest applied from this source: a replay"},
		{"none after one", lock(0), last, "the lock has no serial, and serial 20"},
		{"same, other packs", &Lock{Serial: 20}, last, "its serial 20 is the one applied from this source, with other packs"},
		{"same, same packs", lock(20), last, ""},
		{"higher", lock(21), last, ""},
		{"nothing applied", lock(1), Applied{}, ""},
		{"nothing applied, no serial", lock(0), Applied{}, ""},
	}
	for _, tc := range tests {
		err := CheckSerial("https://sets.example.org/forgepacks.lock", tc.l, tc.last)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: CheckSerial = %v; want nil", tc.name, err)
		case tc.want != "" && (!errors.Is(err, ErrReplay) || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "https://sets.example.org/forgepacks.lock: ")):
			t.Errorf("%s: CheckSerial = %v; want ErrReplay, naming the source, …%s", tc.name, err, tc.want)
		}
	}

	expires := time.Date(2030, 1, 31, 12, 0, 0, 0, time.UTC)
	l := &Lock{Expires: expires}
	if err := l.CheckExpiry(expires.Add(-time.Second)); err != nil {
		t.Errorf("CheckExpiry(a second before) = %v; want nil", err)
	}
	for _, now := range []time.Time{expires, expires.Add(26 * time.Hour)} {
		err := l.CheckExpiry(now)
		if !errors.Is(err, ErrExpired) || !strings.Contains(err.Error(), "it expired at 2030-01-31T12:00:00Z") {
			t.Errorf("CheckExpiry(%s) = %v; want ErrExpired at 2030-01-31T12:00:00Z", now, err)
		}
	}
	if err := (&Lock{}).CheckExpiry(expires); err != nil {
		t.Errorf("CheckExpiry(no expires) = %v; want nil", err)
	}
	notes := []struct {
		now  time.Time
		want string
	}{
		{expires.Add(-8 * 24 * time.Hour), ""},
		{expires.Add(-expiryWarning), "the pack set expires at 2030-01-31T12:00:00Z, in 7 days"},
		{expires.Add(-74 * time.Hour), "in 3 days 2 hours"},
		{expires.Add(-90 * time.Minute), "in 1 hour 30 minutes"},
		{expires, "the pack set expired at 2030-01-31T12:00:00Z"},
	}
	for _, n := range notes {
		if got := ExpiryNote(expires, n.now); n.want == "" && got != "" || !strings.Contains(got, n.want) {
			t.Errorf("ExpiryNote(%s) = %q; want %q", n.now, got, n.want)
		}
	}
	if got := ExpiryNote(time.Time{}, expires); got != "" {
		t.Errorf("ExpiryNote(never) = %q; want none", got)
	}
}

// TestStamp: an export's serial follows the last export's (+1) or the
// time, whichever is higher; an export that changes nothing keeps it, so
// its bytes stay; --expires sets the expiry and always makes a new serial.
func TestStamp(t *testing.T) {
	now := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	at := now.Add(300 * time.Millisecond) // the expiry is to the second
	set := func() *Lock {
		return &Lock{Packs: []Pack{{ID: "alpha-pack", Version: "1.0.0", SHA256: settest.HashA, Size: 1, URLs: []string{"packs/a.zip"}}}}
	}
	tests := []struct {
		name     string
		prev     *Lock
		lifetime time.Duration
		serial   int64
		expires  time.Time
	}{
		{"first", nil, 0, at.UnixMilli(), time.Time{}},
		{"after one older than the time", &Lock{Serial: 5, Packs: set().Packs[:0]}, 0, at.UnixMilli(), time.Time{}},
		{"after one from the future", &Lock{Serial: at.UnixMilli() + 1000}, 0, at.UnixMilli() + 1001, time.Time{}},
		{"nothing changed", func() *Lock { l := set(); l.Serial = 42; return l }(), 0, 42, time.Time{}},
		{"nothing changed, no serial yet", set(), 0, at.UnixMilli(), time.Time{}},
		{"a name changed", func() *Lock { l := set(); l.Serial = 42; l.Name = "old"; return l }(), 0, at.UnixMilli(), time.Time{}},
		{"expires", func() *Lock { l := set(); l.Serial = 42; return l }(), 30 * 24 * time.Hour, at.UnixMilli(), now.Add(30 * 24 * time.Hour)},
		{"expired before, not now", func() *Lock { l := set(); l.Serial = 42; l.Expires = now; return l }(), 0, at.UnixMilli(), time.Time{}},
	}
	for _, tc := range tests {
		l := set()
		l.Stamp(tc.prev, at, tc.lifetime)
		if l.Serial != tc.serial || !l.Expires.Equal(tc.expires) {
			t.Errorf("%s: Stamp = serial %d, expires %s; want %d, %s", tc.name, l.Serial, l.Expires, tc.serial, tc.expires)
		}
	}
}

// TestParseLifetime: --expires takes whole days or a Go duration, and
// refuses nothing, less, too much or another unit, saying what it wants.
func TestParseLifetime(t *testing.T) {
	for in, want := range map[string]time.Duration{"30d": 30 * 24 * time.Hour, "1d": 24 * time.Hour, "72h": 72 * time.Hour, "90m": 90 * time.Minute, "3650d": maxLifetime} {
		if got, err := ParseLifetime(in); err != nil || got != want {
			t.Errorf("ParseLifetime(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for in, want := range map[string]string{"": "such as 30d", "0d": "1 to 3650 days", "-1d": "1 to 3650 days", "3651d": "1 to 3650 days",
		"30": "such as 30d", "2w": "such as 30d", "0s": "more than zero", "100000h": "at most 3650 days", "1.5d": "such as 30d"} {
		if _, err := ParseLifetime(in); err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "--expires") {
			t.Errorf("ParseLifetime(%q) = %v; want an error saying %q", in, err, want)
		}
	}
}
