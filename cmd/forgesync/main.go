// Command forgesync keeps MJOLNIR Forge mod packs installed, validated and in
// sync: a daemon that watches a drop folder, and the CLI that packs, scans
// and manages packs. This package parses flags and calls one function per
// sub-command; the work happens in the packages it wires together.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
