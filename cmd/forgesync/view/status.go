package view

import (
	"fmt"
	"io"

	"github.com/mjolnir-forge/forgesync/api"
)

// RunningStatus is what `status --json` prints for a running daemon: the
// status the socket serves, the socket's path, and the daemon's log file
// always present (empty when the daemon logs to its terminal), so a
// launcher finds both without reading the configuration.
type RunningStatus struct {
	*api.Status
	Socket  string `json:"socket"`
	LogFile string `json:"log_file"`
}

// NotRunning is what `status` says when no daemon answers: where it
// asked, and (in JSON) the mods folder's version gates.
type NotRunning struct {
	Gates   *api.Gates `json:"gates,omitempty"`
	Running bool       `json:"running"`
	Socket  string     `json:"socket"`
}

// WriteNotRunning writes that no daemon answers on the socket, and what
// to do instead. The socket's path is the user's configuration, written as
// it is.
func WriteNotRunning(w io.Writer, n NotRunning) error {
	fmt.Fprintf(w, "no forgesync daemon is answering on %s\n", n.Socket)
	_, err := fmt.Fprintln(w, "start one with `forgesync daemon`, or use `forgesync sync` and `forgesync packs` directly")
	return err
}
