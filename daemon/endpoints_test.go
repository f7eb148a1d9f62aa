package daemon

import (
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
)

func TestListenAll(t *testing.T) {
	dir, err := os.MkdirTemp("", "fsep")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	sock := filepath.Join(dir, "s.sock")
	log := slog.New(slog.DiscardHandler)
	eps, err := listenAll(sock, "127.0.0.1:0", dir, log)
	if err != nil {
		t.Fatalf("ListenAll = %v", err)
	}
	defer eps.Close()
	if eps.unix == nil || eps.tcp == nil || eps.key == "" {
		t.Fatalf("endpoints = %+v; want the socket, the TCP API and its key", eps)
	}
	if _, err := listenAll(sock, "", dir, log); !errors.Is(err, errAlreadyRunning) {
		t.Errorf("a second ListenAll on the socket = %v; want ErrAlreadyRunning", err)
	}
}
