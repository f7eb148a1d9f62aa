package installer

import (
	"context"
	"os"
	"testing"
)

func TestZZProf(t *testing.T) {
	a := os.Getenv("PROF_ARCHIVE")
	if a == "" {
		t.Skip()
	}
	for i := 0; i < 3; i++ {
		dir := t.TempDir()
		st, err := extractAt(context.Background(), a, dir, DefaultLimits(), nil, false)
		if err != nil {
			t.Fatal(err)
		}
		st.Remove()
	}
}
