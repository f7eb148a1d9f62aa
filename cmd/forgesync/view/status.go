package view

import (
	"fmt"
	"io"
	"strings"

	"github.com/mjolnir-forge/forgesync/api"
	"github.com/mjolnir-forge/forgesync/inventory/rejection"
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
// asked, the mods folder's version gates (in JSON) and, when it could be
// read, the state on disk (the folder, the status and the rejected
// archives).
type NotRunning struct {
	Gates      *api.Gates      `json:"gates,omitempty"`
	Running    bool            `json:"running"`
	Socket     string          `json:"socket"`
	StateDir   string          `json:"state_dir,omitempty"`
	Status     *api.Status     `json:"status,omitempty"`
	Rejections []api.Rejection `json:"rejections,omitempty"`
}

// WriteNotRunning writes that no daemon answers on the socket, the state
// on disk when it was read, and what to do. The paths are the user's
// configuration, written as they are.
func WriteNotRunning(w io.Writer, n NotRunning) error {
	fmt.Fprintf(w, "no forgesync daemon is answering on %s\n", n.Socket)
	if n.Status != nil {
		var b strings.Builder
		printf(&b, "no daemon running: this is the state on disk (%s), as the last command left it\n", n.StateDir)
		writeStatusBody(&b, *n.Status, n.Rejections)
		io.WriteString(w, b.String())
	}
	_, err := fmt.Fprintln(w, "start one with `forgesync daemon`, or use `forgesync sync` and `forgesync packs` directly")
	return err
}

// WriteChange writes what enable, disable or remove (verb) did to the
// pack id, before the summary: "ID: enabled", and " (by the running
// daemon)" when byDaemon. An enable or a disable that changed nothing
// writes that the pack is so already and reports true: there is no
// summary to write. id is the user's argument.
func WriteChange(w io.Writer, verb, id string, sum *api.Summary, byDaemon bool) (already bool) {
	if (verb == "enable" || verb == "disable") && sum.Generation == 0 && len(sum.Outcomes) == 0 {
		fmt.Fprintf(w, "%s is already %sd\n", rejection.Escape(id), verb)
		return true
	}
	by := ""
	if byDaemon {
		by = " (by the running daemon)"
	}
	fmt.Fprintf(w, "%s: %sd%s\n", id, verb, by)
	return false
}
