package lan

import (
	"context"
	"math"
	"net/http"
	"sync"
	"time"
)

// writePiece is the most bytes written at once under the upload bound, so
// that one large write does not hold the link for long.
const writePiece = 16 << 10

// throttle bounds the bytes sent per second over every answer: before n
// bytes are written it reserves their time on the link and waits until
// then, so that by any time T at most rate × (T − the first write) bytes
// were let through.
type throttle struct {
	rate  int64
	now   func() time.Time
	sleep func(ctx context.Context, d time.Duration) error

	mu   sync.Mutex // guards next
	next time.Time  // when the bytes reserved so far have gone at rate
}

// wait returns when n more bytes may be sent, or ctx's error.
func (t *throttle) wait(ctx context.Context, n int) error {
	if t == nil || t.rate <= 0 {
		return nil
	}
	t.mu.Lock()
	now := t.clock()
	if t.next.Before(now) {
		t.next = now
	}
	// Rounded up: the bound holds to the nanosecond.
	t.next = t.next.Add(time.Duration(math.Ceil(float64(n) / float64(t.rate) * float64(time.Second))))
	d := t.next.Sub(now)
	t.mu.Unlock()
	if t.sleep != nil {
		return t.sleep(ctx, d)
	}
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-tm.C:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

func (t *throttle) clock() time.Time {
	if t.now != nil {
		return t.now()
	}
	return time.Now()
}

// limitedWriter writes an answer's body under a throttle, a piece at a
// time.
type limitedWriter struct {
	http.ResponseWriter
	ctx context.Context
	t   *throttle
}

func (w *limitedWriter) Write(p []byte) (int, error) {
	done := 0
	for done < len(p) {
		n := min(len(p)-done, writePiece)
		if err := w.t.wait(w.ctx, n); err != nil {
			return done, err
		}
		m, err := w.ResponseWriter.Write(p[done : done+n])
		done += m
		if err != nil {
			return done, err
		}
	}
	return done, nil
}
