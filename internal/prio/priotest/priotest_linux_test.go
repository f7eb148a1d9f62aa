package priotest

import "testing"

func TestStatPriority(t *testing.T) {
	// A real line (a thread at nice 19 under SCHED_IDLE), its name holding
	// spaces and parentheses.
	stat := "4242 (a) b) (c) S 1 4242 4242 0 -1 4194560 100 0 0 0 1 2 0 0 39 19 7 0 12345 1000 100 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 5 0 0 0 0 0 0 0 0 0 0"
	if n, p, err := statPriority(stat); err != nil || n != 19 || p != 5 {
		t.Errorf("statPriority = %d, %d, %v; want 19, 5", n, p, err)
	}
	if _, _, err := statPriority("4242 (x"); err == nil {
		t.Error("statPriority of a cut line: no error")
	}
	if _, _, err := statPriority("4242 (a) S 1 4242 4242 0 -1 4194560 100 0 0 0 1 2 0 0 39 19 7 0 12345"); err == nil {
		t.Error("statPriority of a line without the policy: no error")
	}
}
