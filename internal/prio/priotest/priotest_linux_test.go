package priotest

import "testing"

func TestStatNice(t *testing.T) {
	stat := "4242 (a) b) (c) S 1 4242 4242 0 -1 4194560 100 0 0 0 1 2 0 0 39 19 7 0 12345 1000 100 18446744073709551615"
	if n, err := statNice(stat); err != nil || n != 19 {
		t.Errorf("statNice = %d, %v; want 19", n, err)
	}
	if _, err := statNice("4242 (x"); err == nil {
		t.Error("statNice of a cut line: no error")
	}
}
