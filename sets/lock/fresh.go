package lock

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/mjolnir-forge/forgesync/internal/atomicfile"
	"github.com/mjolnir-forge/forgesync/internal/text"
)

// Freshness of a lock (SPEC §10.2c): a serial that only grows from one
// export to the next, and an optional expiry, both lock text (so covered
// by its signature) and neither in its fingerprint.
const (
	// expiryWarning is how long before a lock's expiry status and diff
	// warn that it is near.
	expiryWarning = 7 * 24 * time.Hour
	// maxLifetime is the longest --expires a lock may be given.
	maxLifetime = 3650 * 24 * time.Hour
)

// Errors of a lock that is not fresh, wrapped with the details.
var (
	// ErrExpired is returned for a lock past its expires: a mirror or a
	// man in the middle may be serving a set its host has since replaced
	// (a freeze).
	ErrExpired = errors.New("the pack set has expired")
	// ErrReplay is returned for a lock older than one already applied
	// from the same source: a lower serial, no serial where one was
	// applied, or the same serial with other packs.
	ErrReplay = errors.New("the pack set is older than the one applied from its source")
)

// Applied is the freshest lock a machine applied from one source: its
// serial, its fingerprint, and when.
type Applied struct {
	Serial      int64     `json:"serial"`
	Fingerprint string    `json:"fingerprint"`
	Time        time.Time `json:"time"`
}

// CheckExpiry returns an error wrapping ErrExpired when l expires at or
// before now; a lock without expires never does.
func (l *Lock) CheckExpiry(now time.Time) error {
	if l.Expires.IsZero() || now.Before(l.Expires) {
		return nil
	}
	return fmt.Errorf("%w: it expired at %s, %s ago (a freeze: a mirror may serve a set its host has replaced); the machine keeps its packs; its host exports the set again to renew it",
		ErrExpired, l.Expires.UTC().Format(time.RFC3339), inWords(now.Sub(l.Expires)))
}

// ExpiryNote returns the warning that status and diff give about a lock
// that expires at expires (zero: never), seen at now: "" when it is more
// than ExpiryWarning away.
func ExpiryNote(expires, now time.Time) string {
	switch {
	case expires.IsZero() || expires.Sub(now) > expiryWarning:
		return ""
	case !now.Before(expires):
		return fmt.Sprintf("the pack set expired at %s: sync --set and the daemon refuse it until its host exports it again", expires.UTC().Format(time.RFC3339))
	}
	return fmt.Sprintf("the pack set expires at %s, in %s: then sync --set and the daemon refuse it, unless its host exports it again before",
		expires.UTC().Format(time.RFC3339), inWords(expires.Sub(now)))
}

// CheckSerial returns an error wrapping ErrReplay when l, read from
// source, is older than last, the freshest lock applied from there: its
// serial is lower, it has none where one was applied, or it is the same
// with other packs (SPEC §10.2c). A source nothing with a serial was
// applied from takes any lock.
func CheckSerial(source string, l *Lock, last Applied) error {
	const keep = "the machine keeps its packs; if the host meant to go back, it exports that set again, which gives it a new serial"
	switch {
	case last.Serial == 0:
		return nil
	case l.Serial == 0:
		return fmt.Errorf("%s: %w: the lock has no serial, and serial %d (%s) was applied from this source: a replay of a set older than serials; %s",
			source, ErrReplay, last.Serial, last.Fingerprint, keep)
	case l.Serial < last.Serial:
		return fmt.Errorf("%s: %w: its serial %d is lower than serial %d (%s), the highest applied from this source: a replay of an older set; %s",
			source, ErrReplay, l.Serial, last.Serial, last.Fingerprint, keep)
	case l.Serial == last.Serial && l.Fingerprint() != last.Fingerprint:
		return fmt.Errorf("%s: %w: its serial %d is the one applied from this source, with other packs (%s, not %s): a set with a serial of another; %s",
			source, ErrReplay, l.Serial, l.Fingerprint(), last.Fingerprint, keep)
	}
	return nil
}

// Stamp sets l's serial and expiry for an export (SPEC §10.2c). prev is
// the lock an earlier export wrote to the same place (nil: none). When l
// pins what prev pins in the same words and neither expires, prev's
// serial stays, so an export that changes nothing writes the same bytes
// (and pushes the same manifest). Otherwise the serial is prev's + 1 or
// now in Unix milliseconds, whichever is higher (milliseconds: two exports
// of different sets from different places, one promoted after the other,
// must not share a serial), and with lifetime > 0 the lock expires that
// long after now, to the second.
func (l *Lock) Stamp(prev *Lock, now time.Time, lifetime time.Duration) {
	l.Serial, l.Expires = 0, time.Time{}
	if lifetime > 0 {
		l.Expires = now.Add(lifetime).UTC().Truncate(time.Second)
	}
	var last int64
	if prev != nil {
		last = prev.Serial
		if last > 0 && lifetime <= 0 && prev.Expires.IsZero() && sameText(l, prev) {
			l.Serial = last
			return
		}
	}
	l.Serial = max(last+1, now.UnixMilli(), 1)
}

// sameText reports whether a and b, serial and expiry aside, encode to
// the same text.
func sameText(a, b *Lock) bool {
	x, y := *a, *b
	x.Serial, x.Expires, y.Serial, y.Expires = 0, time.Time{}, 0, time.Time{}
	ex, err1 := Encode(&x)
	ey, err2 := Encode(&y)
	return err1 == nil && err2 == nil && string(ex) == string(ey)
}

// PreviousLock returns the lock at path that an earlier `lock -o` or
// `export` wrote, for [Lock.Stamp]; nil when there is none or it does not
// read as a lock (it is then replaced whole).
func PreviousLock(path string) *Lock {
	data, err := atomicfile.ReadFile(path, MaxLockBytes)
	if err != nil {
		return nil
	}
	l, err := Decode(LockName, data, DecodeOptions{Have: HaveAll})
	if err != nil {
		return nil
	}
	return l
}

// ParseLifetime reads --expires: whole days ("30d") or a Go duration
// ("72h", "90m"), more than zero and at most MaxLifetime.
func ParseLifetime(s string) (time.Duration, error) {
	var d time.Duration
	var err error
	if n, ok := strings.CutSuffix(s, "d"); ok {
		var days int64
		days, err = strconv.ParseInt(n, 10, 64)
		if err == nil && (days <= 0 || days > int64(maxLifetime/(24*time.Hour))) {
			return 0, fmt.Errorf("--expires %q: want 1 to %d days", s, maxLifetime/(24*time.Hour))
		}
		d = time.Duration(days) * 24 * time.Hour
	} else {
		d, err = time.ParseDuration(s)
	}
	if err != nil {
		return 0, fmt.Errorf("--expires %q: want how long the set stays valid, such as 30d, 72h or 90m", s)
	}
	if d <= 0 || d > maxLifetime {
		return 0, fmt.Errorf("--expires %q: want more than zero and at most %d days", s, maxLifetime/(24*time.Hour))
	}
	return d, nil
}

// inWords says a duration in words: days and hours from a day up,
// hours and minutes below.
func inWords(d time.Duration) string {
	d = d.Round(time.Minute)
	days, hours, minutes := int64(d/(24*time.Hour)), int64(d%(24*time.Hour)/time.Hour), int64(d%time.Hour/time.Minute)
	switch {
	case days >= 1 && hours > 0:
		return text.Count64(days, "day") + " " + text.Count64(hours, "hour")
	case days >= 1:
		return text.Count64(days, "day")
	case hours >= 1:
		return text.Count64(hours, "hour") + " " + text.Count64(minutes, "minute")
	}
	return text.Count64(minutes, "minute")
}
