package daemon

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"time"

	"github.com/kardianos/service"
	"gopkg.in/natefinch/lumberjack.v2"
)

// logOptions say where a service logs.
type logOptions struct {
	// File is the log file, rotated by size (<state>/logs/forgesync.log by
	// default); "" logs to no file.
	File string
	// Level is the lowest level logged.
	Level slog.Leveler
	// Stderr receives JSON lines when System is nil: systemd's journal
	// reads a service's stderr.
	Stderr io.Writer
	// System is the OS log (the Windows Event Log), from systemLogger.
	System service.Logger
	// MaxSizeMB and MaxBackups bound the log file: 10 MB, 5 old files by
	// default.
	MaxSizeMB, MaxBackups int
}

// systemLogger returns the OS log of the service cfg describes where a
// service has no stderr (the Windows Event Log); nil elsewhere, where the
// service manager reads stderr (systemd's journal, launchd's log).
func systemLogger(cfg ServiceConfig) (service.Logger, error) {
	if runtime.GOOS != "windows" {
		return nil, nil
	}
	svc, _, err := newService(cfg)
	if err != nil {
		return nil, err
	}
	return svc.SystemLogger(nil)
}

// newServiceLog returns the logger of a running service: the OS log (or
// JSON on stderr) and a size-rotated file, both at o.Level. Close the
// returned io.Closer at exit.
func newServiceLog(o logOptions) (*slog.Logger, io.Closer, error) {
	hopts := &slog.HandlerOptions{Level: o.Level}
	var handlers []slog.Handler
	if o.System != nil {
		handlers = append(handlers, &systemHandler{log: o.System, opts: hopts, inner: func(w io.Writer) slog.Handler { return slog.NewTextHandler(w, hopts) }})
	} else if o.Stderr != nil {
		handlers = append(handlers, slog.NewJSONHandler(o.Stderr, hopts))
	}
	var closer io.Closer = io.NopCloser(nil)
	if o.File != "" {
		if err := os.MkdirAll(filepath.Dir(o.File), 0o700); err != nil {
			return nil, nil, fmt.Errorf("log file %s: %w", o.File, err)
		}
		size, backups := o.MaxSizeMB, o.MaxBackups
		if size <= 0 {
			size = 10
		}
		if backups <= 0 {
			backups = 5
		}
		lj := &lumberjack.Logger{Filename: o.File, MaxSize: size, MaxBackups: backups}
		rl := &rotatingLog{inner: lj, name: o.File, now: time.Now}
		handlers = append(handlers, slog.NewJSONHandler(rl, hopts))
		closer = rl
	}
	return slog.New(slog.NewMultiHandler(handlers...)), closer, nil
}

// rotateRetry is how long a log whose rotation failed is appended to
// before rotation is tried again.
const rotateRetry = time.Minute

// rotatingLog is the service's log file: lumberjack rotates it by size,
// and when a write through lumberjack fails (on Windows a log viewer that
// holds the file without delete sharing makes the rotation's rename fail,
// and lumberjack then drops every line) the line is appended to the
// current file instead, which keeps growing; rotation is tried again after
// rotateRetry. No line is lost while any file can be written.
type rotatingLog struct {
	inner io.WriteCloser // lumberjack, or a fake in tests
	name  string         // the current log file
	now   func() time.Time

	mu      sync.Mutex // guards the fields below and serialises writes
	held    *os.File   // the current file, appended to while rotation fails; nil otherwise
	retryAt time.Time  // when to try the inner writer again
}

func (r *rotatingLog) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.held != nil && r.now().Before(r.retryAt) {
		return r.held.Write(p)
	}
	if r.held != nil {
		// Each write to it was answered when made; a close error could be
		// told only to this log, which is what is failing.
		r.held.Close()
		r.held = nil
	}
	n, err := r.inner.Write(p)
	if err == nil {
		return n, nil
	}
	f, ferr := os.OpenFile(r.name, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if ferr != nil {
		return 0, fmt.Errorf("log file %s: %w (appending instead: %w)", r.name, err, ferr)
	}
	r.held, r.retryAt = f, r.now().Add(rotateRetry)
	return r.held.Write(p)
}

// Close closes the file and lumberjack.
func (r *rotatingLog) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	var err error
	if r.held != nil {
		err = r.held.Close()
		r.held = nil
	}
	return errors.Join(err, r.inner.Close())
}

// systemHandler writes each record as one text line to the OS log, at the
// record's level.
type systemHandler struct {
	log   service.Logger
	opts  *slog.HandlerOptions
	inner func(io.Writer) slog.Handler // the text handler, with attrs and groups applied

	mu sync.Mutex // serialises writes to the OS log
}

func (h *systemHandler) Enabled(_ context.Context, l slog.Level) bool {
	min := slog.LevelInfo
	if h.opts.Level != nil {
		min = h.opts.Level.Level()
	}
	return l >= min
}

func (h *systemHandler) Handle(ctx context.Context, r slog.Record) error {
	var buf bytes.Buffer
	if err := h.inner(&buf).Handle(ctx, r); err != nil {
		return err
	}
	line := string(bytes.TrimRight(buf.Bytes(), "\n"))
	h.mu.Lock()
	defer h.mu.Unlock()
	switch {
	case r.Level >= slog.LevelError:
		return h.log.Error(line)
	case r.Level >= slog.LevelWarn:
		return h.log.Warning(line)
	}
	return h.log.Info(line)
}

func (h *systemHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	inner := h.inner
	return &systemHandler{log: h.log, opts: h.opts, inner: func(w io.Writer) slog.Handler { return inner(w).WithAttrs(attrs) }}
}

func (h *systemHandler) WithGroup(name string) slog.Handler {
	inner := h.inner
	return &systemHandler{log: h.log, opts: h.opts, inner: func(w io.Writer) slog.Handler { return inner(w).WithGroup(name) }}
}
