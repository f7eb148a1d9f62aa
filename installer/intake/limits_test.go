package intake

import (
	"errors"
	"strings"
	"testing"
)

func TestLimitsValidate(t *testing.T) {
	if err := DefaultLimits().Validate(); err != nil {
		t.Errorf("DefaultLimits().Validate() = %v; want nil", err)
	}
	lower := Limits{MaxEntries: 1, MaxTotalBytes: 1, MaxEntryBytes: 1, MaxRatio: 1, MaxPathBytes: 1, MaxDepth: 1}
	if err := lower.Validate(); err != nil {
		t.Errorf("Validate(lowered) = %v; want nil", err)
	}
	for _, tc := range []struct {
		name string
		mod  func(*Limits)
		key  string
	}{
		{"entries raised", func(l *Limits) { l.MaxEntries = 4097 }, "max_entries"},
		{"total raised", func(l *Limits) { l.MaxTotalBytes = 5 << 30 }, "max_total_bytes"},
		{"entry raised", func(l *Limits) { l.MaxEntryBytes = 3 << 30 }, "max_entry_bytes"},
		{"ratio raised", func(l *Limits) { l.MaxRatio = 201 }, "max_ratio"},
		{"path raised", func(l *Limits) { l.MaxPathBytes = 260 }, "max_path_bytes"},
		{"depth raised", func(l *Limits) { l.MaxDepth = 9 }, "max_depth"},
		{"zero", func(l *Limits) { l.MaxEntries = 0 }, "max_entries"},
		{"negative", func(l *Limits) { l.MaxRatio = -1 }, "max_ratio"},
	} {
		l := DefaultLimits()
		tc.mod(&l)
		err := l.Validate()
		if !errors.Is(err, ErrLimitRaised) || !strings.Contains(err.Error(), tc.key) {
			t.Errorf("%s: Validate() = %v; want ErrLimitRaised naming %s", tc.name, err, tc.key)
		}
	}
	var zero Limits
	if err := zero.Validate(); err == nil || strings.Count(err.Error(), "must be positive") != 6 {
		t.Errorf("Limits{}.Validate() = %v; want all six limits reported", err)
	}
}
