package intake

import (
	"context"
	"fmt"
	"io"
	"os/exec"
	"time"
)

// confinement is what limitChild put a child under: release ends it
// (on Windows it closes the Job Object, which kills a child still in it),
// and cpu sets the processor time limit, which depends on the archive and
// so is set with the request.
type confinement struct {
	release func()
	cpu     func(time.Duration) error
}

// child is a started unpacker, confined (its memory limit in force) and
// waiting for its request. Once sent one (see [Extractor.send]), its
// processor time limit, wall-clock budget and memory watch run too.
type child struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout io.ReadCloser
	stderr *stderrBuffer
	conf   confinement
	// Set by send: stopKill stops the kill at the end of the budget;
	// stopWatch stops sampling the child's memory and returns the peak.
	stopKill  func() bool
	stopWatch func() int64
}

// start starts a child and confines it. It does nothing before it reads
// its request but lower its priority: the memory limit is in force before
// that, and the processor time limit comes with the request.
func (iso *Isolation) start() (*child, error) {
	c := &child{stderr: &stderrBuffer{}}
	cmd, stdin, stdout, err := iso.command(c.stderr)
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start the unpacker: %w", err)
	}
	if hook := childStarted; hook != nil {
		hook(cmd.Process.Pid)
	}
	c.cmd, c.stdin, c.stdout = cmd, stdin, stdout
	conf, err := limitChild(cmd.Process, iso.Memory, iso.Background)
	c.conf = conf
	if err != nil {
		c.kill()
		return nil, fmt.Errorf("%w: %w", errUnconfined, err)
	}
	return c, nil
}

// kill ends a child that has no request, waits for it and releases its
// confinement.
func (c *child) kill() {
	c.cmd.Process.Kill()
	c.stdin.Close()
	c.cmd.Wait()
	c.conf.release()
}

// release releases the confinement of a child that was waited for.
func (c *child) release() { c.conf.release() }

// send gives a child the request req: the warm one when there is one,
// else one started now. Its processor time is limited to cpu, and it is
// killed when ctx ends (the wall-clock budget, or the caller's). A warm
// child that died while it waited (nothing but an outside hand kills a
// child that reads its standard input) cannot take the request: it is
// replaced by a new one, and the archive does not pay for it. A child
// started for the archive is never replaced: its death is the archive's
// (see [Isolation.death]), as it always was.
func (x *Extractor) send(ctx context.Context, req []byte, cpu time.Duration) (*child, error) {
	c, warm := x.take()
	for {
		if c == nil {
			var err error
			if c, err = x.iso.start(); err != nil {
				return nil, err
			}
			warm = false
		}
		if err := c.conf.cpu(cpu); err != nil {
			c.kill()
			return nil, fmt.Errorf("%w: limit its processor time: %w", errUnconfined, err)
		}
		_, err := c.stdin.Write(req)
		if err == nil || !warm {
			// A child started for this archive that cannot take it died
			// at its start: it is waited for, and its death judged, as
			// any other.
			c.stdin.Close()
			break
		}
		c.kill()
		c = nil
	}
	p := c.cmd.Process
	c.stopKill = context.AfterFunc(ctx, func() { p.Kill() })
	c.stopWatch = watchData(p.Pid)
	return c, nil
}

// take returns the warm child (warm true), or nil when there is none.
// One being started is waited for: it is further on than a new one would
// be. The next warm child is started once this one has ended
// ([Extractor.prewarm] after its Wait), so that its start does not take
// the processor from this extraction.
func (x *Extractor) take() (c *child, warm bool) {
	x.mu.Lock()
	if x.warm == nil && x.starting {
		started := x.started
		x.mu.Unlock()
		<-started
		x.mu.Lock()
	}
	c, x.warm = x.warm, nil
	x.mu.Unlock()
	return c, c != nil
}

// Warm makes the Extractor keep one child started ahead of need from now
// on: each extraction takes it and the next one starts at once, so that an
// archive does not wait for a process to start. The waiting child has the
// same limits as any: its memory limit from the start, and its processor
// time limit and wall-clock budget from its request. [Extractor.Close]
// ends it; the owner of a long-lived Extractor (the daemon) calls it.
func (x *Extractor) Warm() {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.keep = true
	x.startWarmLocked()
}

// WarmOnce starts one child ahead of the next extraction, for a command
// about to extract that has other work first (a one-shot sync opens the
// state meanwhile); unlike Warm, none replaces it after its use.
// [Extractor.EndWarm] ends it when no extraction took it.
func (x *Extractor) WarmOnce() {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.startWarmLocked()
}

// EndWarm ends the child [Extractor.WarmOnce] started that no extraction
// took (waiting for its start first), unless the Extractor keeps one
// ([Extractor.Warm]). Unlike Close, it leaves the Extractor as it was.
func (x *Extractor) EndWarm() {
	x.mu.Lock()
	for !x.keep && x.starting {
		started := x.started
		x.mu.Unlock()
		<-started
		x.mu.Lock()
	}
	var c *child
	if !x.keep {
		c, x.warm = x.warm, nil
	}
	x.mu.Unlock()
	if c != nil {
		c.kill()
	}
}

// prewarm starts the next warm child when the Extractor keeps one.
func (x *Extractor) prewarm() {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.keep {
		x.startWarmLocked()
	}
}

// startWarmLocked starts a warm child, in a goroutine that Close waits
// for, unless one waits or is starting or the Extractor is closed. A child
// that cannot start is not retried here: the next extraction starts its
// own and reports why it could not. x.mu is held.
func (x *Extractor) startWarmLocked() {
	if x.closed || x.warm != nil || x.starting {
		return
	}
	x.starting = true
	started := make(chan struct{})
	x.started = started
	x.starter.Add(1)
	go func() {
		defer x.starter.Done()
		defer close(started)
		c, err := x.iso.start()
		x.mu.Lock()
		x.starting = false
		if err == nil && !x.closed && x.warm == nil {
			x.warm, c = c, nil
		}
		x.mu.Unlock()
		if c != nil {
			c.kill() // closed meanwhile
		}
	}()
}

// Close ends the warm child and stops keeping one; extractions still
// work after it, each starting its own child. It waits for a child being
// started, so that none is left behind.
func (x *Extractor) Close() error {
	x.mu.Lock()
	x.closed = true
	c := x.warm
	x.warm = nil
	x.mu.Unlock()
	x.starter.Wait()
	if c != nil {
		c.kill()
	}
	return nil
}
