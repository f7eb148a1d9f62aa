package native

import (
	"errors"
	"testing"
)

func TestParseSemVer(t *testing.T) {
	good := []string{"0.0.0", "0.4.0", "0.19.2", "1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-0.3.7",
		"1.0.0-x.7.z.92", "1.0.0+20130313144700", "1.0.0-beta+exp.sha.5114f85", "1.0.0-x-y-z.--",
		"18446744073709551615.0.0"}
	for _, s := range good {
		v, err := ParseSemVer(s)
		if err != nil {
			t.Errorf("ParseSemVer(%q) = %v; want nil", s, err)
			continue
		}
		if v.String() != s {
			t.Errorf("ParseSemVer(%q).String() = %q; want %q", s, v.String(), s)
		}
	}
	bad := []string{"", "1", "1.2", "1.2.3.4", "v1.2.3", "01.2.3", "1.02.3", "1.2.03", "1.2.3-",
		"1.2.3+", "1.2.3-01", "1.2.3-a..b", "1.2.3+a..b", "1.2.3-a_b", " 1.2.3", "1.2.3 ", "1.2.-3",
		"18446744073709551616.0.0", "1.2.3-é"}
	for _, s := range bad {
		if _, err := ParseSemVer(s); !errors.Is(err, ErrSemVer) {
			t.Errorf("ParseSemVer(%q) = %v; want ErrSemVer", s, err)
		}
	}
}

func TestSemVerCompare(t *testing.T) {
	// SemVer 2.0.0 §11's example order, plus a few more.
	ordered := []string{"0.3.9", "0.4.0-rc.1", "0.4.0", "0.4.1", "0.19.1", "0.19.2", "0.20.0",
		"1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-alpha.beta", "1.0.0-beta", "1.0.0-beta.2",
		"1.0.0-beta.11", "1.0.0-rc.1", "1.0.0", "2.0.0", "2.1.0", "2.1.1", "10.0.0"}
	for i := range ordered {
		for j := range ordered {
			a, _ := ParseSemVer(ordered[i])
			b, _ := ParseSemVer(ordered[j])
			want := 0
			if i < j {
				want = -1
			} else if i > j {
				want = 1
			}
			if got := a.Compare(b); got != want {
				t.Errorf("Compare(%s, %s) = %d; want %d", ordered[i], ordered[j], got, want)
			}
		}
	}
	a, _ := ParseSemVer("1.0.0+a")
	b, _ := ParseSemVer("1.0.0+b")
	if a.Compare(b) != 0 {
		t.Errorf("Compare(1.0.0+a, 1.0.0+b) = %d; want 0 (build metadata ignored)", a.Compare(b))
	}
}

func FuzzParseSemVer(f *testing.F) {
	for _, s := range []string{"0.4.0", "1.0.0-rc.1+b", "01.0.0", "1.0.0-"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseSemVer(s)
		if err != nil {
			return
		}
		if v.String() != s {
			t.Fatalf("ParseSemVer(%q).String() = %q", s, v.String())
		}
		if v.Compare(v) != 0 {
			t.Fatalf("Compare(%q, itself) != 0", s)
		}
	})
}
