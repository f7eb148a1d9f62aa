package fetch

import (
	"context"
	"time"

	"github.com/cenkalti/backoff/v5"
)

// retry is the one retry policy of every fetch: it runs op until it
// succeeds, fails with an error that will not pass (transient says which
// may), ctx ends, or the Fetcher's tries are spent, waiting an exponential,
// jittered delay between tries; it returns the tries made and op's last
// error, or ctx's when ctx ended a wait. backoff.Retry runs the loop;
// since its timer cannot be given, the delays are waited out through the
// Fetcher's Sleep (tests record them) and backoff.Retry waits none.
func (f *Fetcher) retry(ctx context.Context, transient func(error) bool, op func() error) (int, error) {
	tries := 0
	w := &waits{f: f, ctx: ctx, b: f.backOff()}
	_, err := backoff.Retry(ctx, func() (struct{}, error) {
		tries++
		err := op()
		if err != nil && (ctx.Err() != nil || !transient(err)) {
			return struct{}{}, backoff.Permanent(err)
		}
		return struct{}{}, err
	}, backoff.WithBackOff(w), backoff.WithMaxTries(uint(pos(f.Tries, defaultTries))), backoff.WithMaxElapsedTime(0))
	if w.err != nil {
		return tries, w.err
	}
	return tries, err
}

// backOff returns the Fetcher's delays: from InitialDelay, doubling up to
// MaxDelay, each ±50%.
func (f *Fetcher) backOff() backoff.BackOff {
	bo := backoff.NewExponentialBackOff()
	bo.InitialInterval = pos(f.InitialDelay, defaultInitialDelay)
	bo.MaxInterval = pos(f.MaxDelay, defaultMaxDelay)
	bo.RandomizationFactor = 0.5
	bo.Multiplier = 2
	return bo
}

// waits is a back-off that waits out each delay of b itself, through the
// Fetcher's Sleep, and has backoff.Retry wait none; a wait ctx ends stops
// the retries, and err keeps why.
type waits struct {
	f   *Fetcher
	ctx context.Context
	b   backoff.BackOff
	err error
}

func (w *waits) NextBackOff() time.Duration {
	if w.err = w.f.sleep(w.ctx, w.b.NextBackOff()); w.err != nil {
		return backoff.Stop
	}
	return 0
}

func (w *waits) Reset() { w.b.Reset() }
