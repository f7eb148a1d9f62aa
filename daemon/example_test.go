package daemon_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"

	"golang.org/x/sync/errgroup"

	"github.com/mjolnir-forge/forgesync/api"
	"github.com/mjolnir-forge/forgesync/daemon"
)

// pipelineBackend stands for the pipeline's Backend: snapshots for reads,
// the single writer for mutations.
type pipelineBackend struct{ daemon.Backend }

// Example shows how forgesync daemon wires the package: one bus that the
// pipeline publishes to, the socket serving the pipeline's Backend, both
// under one errgroup, all inside the service's run function.
func Example() {
	run := func(ctx context.Context) error {
		log := slog.New(slog.NewJSONHandler(os.Stderr, nil))
		if daemon.Interactive() {
			log = slog.New(slog.NewTextHandler(os.Stderr, nil))
		}
		ev := daemon.NewEvents(daemon.EventsOptions{})
		defer ev.Close()
		ln, err := daemon.Listen("/var/lib/forgesync/forgesync.sock")
		if err != nil {
			return err // names the running daemon's pid when there is one
		}
		var b daemon.Backend = pipelineBackend{} // the pipeline, given ev to publish to
		g, ctx := errgroup.WithContext(ctx)
		g.Go(func() error { return daemon.Serve(ctx, ln, b, ev, daemon.ServerOptions{Logger: log}) })
		g.Go(func() error {
			// pipeline.Run(ctx, …) publishes as it goes:
			_, err := ev.Publish(api.Warning{Message: "MJOLNIRForge 0.3.9 is older than 0.4.0: door automation is off"})
			<-ctx.Done()
			return err
		})
		return g.Wait()
	}
	_ = daemon.ServiceConfig{
		Description: "Installs and validates Forge mod packs",
		Arguments:   []string{"daemon", "--config", "/etc/forgesync/forgesync.toml"},
		Run:         run,
	} // daemon.RunService(cfg) runs it, in the foreground or under the service manager

	// The CLI: talk to the daemon when one runs.
	ctx := context.Background()
	if daemon.Probe(ctx, "/var/lib/forgesync/forgesync.sock") {
		c := daemon.NewClient("/var/lib/forgesync/forgesync.sock")
		defer c.Close()
		if sum, err := c.Enable(ctx, "foundry-wide"); err == nil {
			fmt.Println(sum.Published)
		}
	}
}
