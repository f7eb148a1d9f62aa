package semver

import "testing"

func TestParse(t *testing.T) {
	good := []string{"0.0.0", "1.4.0", "10.20.30", "1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-0.3.7",
		"1.0.0-x.7.z.92", "1.0.0+20130313144700", "1.0.0-beta+exp.sha.5114f85", "1.0.0-x-y-z.--",
		"18446744073709551615.0.0"}
	for _, s := range good {
		v, err := Parse(s)
		if err != nil {
			t.Errorf("Parse(%q) = %v; want ok", s, err)
			continue
		}
		if v.String() != s {
			t.Errorf("Parse(%q).String() = %q", s, v.String())
		}
	}
	bad := []string{"", "1", "1.2", "1.2.3.4", "v1.2.3", "01.2.3", "1.02.3", "1.2.03", "1.2.3-", "1.2.3+",
		"1.2.3-01", "1.2.3-a..b", "1.2.3+a..b", "1.2.3-a_b", " 1.2.3", "1.2.3 ", "-1.2.3", "1.2.3-+", "1.2.-3",
		"18446744073709551616.0.0", "1.2.3-é"}
	for _, s := range bad {
		if _, err := Parse(s); err == nil {
			t.Errorf("Parse(%q) = ok; want error", s)
		}
	}
}

func TestComparePrecedence(t *testing.T) {
	// The order given in SemVer 2.0.0 §11.
	order := []string{"1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-alpha.beta", "1.0.0-beta", "1.0.0-beta.2",
		"1.0.0-beta.11", "1.0.0-rc.1", "1.0.0", "1.0.1", "1.1.0", "2.0.0", "10.0.0"}
	for i := range order {
		for j := range order {
			a, _ := Parse(order[i])
			b, _ := Parse(order[j])
			want := 0
			if i < j {
				want = -1
			} else if i > j {
				want = 1
			}
			if got := Compare(a, b); got != want {
				t.Errorf("Compare(%s, %s) = %d; want %d", order[i], order[j], got, want)
			}
		}
	}
	a, _ := Parse("1.0.0+a")
	b, _ := Parse("1.0.0+b")
	if Compare(a, b) != 0 {
		t.Errorf("build metadata changed precedence")
	}
}
