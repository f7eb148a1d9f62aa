package daemon

import (
	"context"
	"errors"
	"io"
	"log/slog"

	"github.com/mjolnir-forge/forgesync/config"
)

// RunAsService runs serve as the machine's OS service of cfg until the
// service manager stops it (see [runService]). The service logs to the OS
// log (the Windows Event Log; JSON on stderr elsewhere, which the journal
// reads) and to cfg's log file, rotated; serve gets that logger. log is
// the logger until then. A service log that cannot be made is the error.
func RunAsService(cfg *config.Config, log *slog.Logger, stderr io.Writer, serve func(ctx context.Context, log *slog.Logger) error) error {
	sys, serr := systemLogger(Service(cfg, false, log, nil))
	svcLog, closer, lerr := newServiceLog(logOptions{File: cfg.Log.File, Level: cfg.Log.Level, Stderr: stderr, System: sys})
	if lerr != nil {
		return errors.Join(serr, lerr)
	}
	defer closer.Close()
	return runService(Service(cfg, false, svcLog, func(ctx context.Context) error { return serve(ctx, svcLog) }))
}
