//go:build unix

package native

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestCheckGatesDirFIFO: a FIFO as a mod's version.txt made the gate check
// (and so status and every sync) wait for ever; the mod is unreadable at
// once.
func TestCheckGatesDirFIFO(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, ModForge), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, ModForge, ModVersionFile), 0o600); err != nil {
		t.Fatal(err)
	}
	done := make(chan Gates, 1)
	go func() { done <- CheckGatesDir(dir) }()
	select {
	case g := <-done:
		if g.Mods[0].Mod != ModForge || g.Mods[0].State != modUnreadable || g.DoorAutomation {
			t.Fatalf("CheckGatesDir with a FIFO as %s's version.txt = %+v; want it unreadable", ModForge, g.Mods[0])
		}
	case <-time.After(10 * time.Second):
		t.Fatal("CheckGatesDir with a FIFO as version.txt still waiting after 10s")
	}
}
