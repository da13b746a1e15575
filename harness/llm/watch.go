package llm

import (
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"sync/atomic"
	"time"
)

// watchdog enforces the first-byte and idle timeouts of one attempt by
// cancelling its context with a TimeoutError as the cause; the transport then
// fails whatever read is blocked. Reads only note the time: the timer checks
// it when it fires, which keeps a busy stream cheap.
type watchdog struct {
	cancel      context.CancelCauseFunc
	timer       *time.Timer
	first, idle time.Duration
	origin      time.Time
	last        atomic.Int64 // when bytes last arrived, since origin
	started     atomic.Bool
	draining    atomic.Bool
}

// watch starts the first-byte clock for an attempt under parent.
func watch(parent context.Context, first, idle time.Duration) (context.Context, *watchdog) {
	ctx, cancel := context.WithCancelCause(parent)
	w := &watchdog{cancel: cancel, first: first, idle: idle, origin: time.Now()}
	w.timer = time.AfterFunc(time.Hour, w.fire)
	if first > 0 {
		w.timer.Reset(first)
	} else {
		w.timer.Stop()
	}
	return ctx, w
}

func (w *watchdog) fire() {
	switch {
	case w.draining.Load():
		w.cancel(context.Canceled)
	case !w.started.Load():
		w.cancel(&TimeoutError{Which: TimeoutFirstByte, After: w.first})
	default:
		quiet := time.Since(w.origin) - time.Duration(w.last.Load())
		if quiet < w.idle {
			w.timer.Reset(w.idle - quiet)
			return
		}
		w.cancel(&TimeoutError{Which: TimeoutIdle, After: w.idle})
	}
}

// alive records that bytes arrived: the first-byte clock gives way to the
// idle clock, which starts again.
func (w *watchdog) alive() {
	if w.draining.Load() {
		return
	}
	w.last.Store(int64(time.Since(w.origin)))
	if w.started.Load() {
		return
	}
	w.started.Store(true)
	if w.idle > 0 {
		w.timer.Reset(w.idle)
	} else {
		w.timer.Stop()
	}
}

// drainGrace is how long the end of a response body may take to arrive
// after the reply itself is complete.
const drainGrace = 100 * time.Millisecond

// drain reads what is left of a body whose reply is complete (the chunked
// terminator after "data: [DONE]"), so that the connection can be reused,
// waiting at most drainGrace for it.
func (w *watchdog) drain(r io.Reader) {
	w.draining.Store(true)
	w.timer.Reset(drainGrace)
	io.Copy(io.Discard, io.LimitReader(r, 64<<10))
}

// stop ends the attempt's clocks and releases its context.
func (w *watchdog) stop() {
	w.timer.Stop()
	w.cancel(context.Canceled)
}

// explain turns the error of a failed read or request into the error the
// caller should see: the caller's own ctx error, or the timeout that fired.
func (w *watchdog) explain(parent, ctx context.Context, err error) error {
	if perr := parent.Err(); perr != nil {
		return perr
	}
	var te *TimeoutError
	if errors.As(context.Cause(ctx), &te) {
		return te
	}
	if errors.As(err, &te) { // the dialer's own timeout
		return te
	}
	return err
}

// watchedBody tells the watchdog about every read that brought bytes, and
// keeps a copy of what arrived for Reply.Raw.
type watchedBody struct {
	r   io.Reader
	w   *watchdog
	raw *rawText
	// events is set for an event stream, where bytes alone are no sign of
	// life: a server that sends nothing but keep-alive comments must still
	// time out. The stream's reader tells the watchdog about data instead.
	events bool
	// pace is Config.ReadPace, for an event stream; ctx ends its wait.
	pace time.Duration
	ctx  context.Context
	// last is when the last read returned, and waited whether the sender
	// trickled then (see Read): only then does the next read wait.
	last   time.Time
	waited bool
	// waits counts the reads that waited for the pace, for tests.
	waits int
}

// paceBlocked is how long a read must take to count as having waited for
// the sender.
const paceBlocked = time.Millisecond

func (b *watchedBody) Read(p []byte) (int, error) {
	paced := false
	if b.pace > 0 && b.waited {
		if d := time.Until(b.last.Add(b.pace)); d > 0 {
			b.waits++
			paced = true
			t := time.NewTimer(d)
			select {
			case <-t.C:
			case <-b.ctx.Done():
				t.Stop()
			}
		}
	}
	t0 := time.Now()
	n, err := b.r.Read(p)
	if b.pace > 0 {
		// The sender trickles when the read had to wait for bytes, or
		// when what a whole pace gathered does not fill the buffer; a
		// read that fills it finds a burst, which is read without pause.
		b.last = time.Now()
		b.waited = b.last.Sub(t0) > paceBlocked || paced && n < len(p)
	}
	if n > 0 {
		if !b.events {
			b.w.alive()
		}
		b.raw.write(p[:n])
	}
	return n, err
}

// dialer wraps net.Dialer so that its timeout comes back as a TimeoutError
// naming the connect timeout.
func dialer(timeout time.Duration) func(ctx context.Context, network, addr string) (net.Conn, error) {
	d := &net.Dialer{Timeout: timeout, KeepAlive: 30 * time.Second}
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		conn, err := d.DialContext(ctx, network, addr)
		if err != nil && ctx.Err() == nil && timeout > 0 {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				return nil, &TimeoutError{Which: TimeoutConnect, After: timeout}
			}
		}
		return conn, err
	}
}

// maxRaw is how much of a reply Reply.Raw keeps.
const maxRaw = 1 << 20

// rawText keeps the first maxRaw bytes of a reply and counts the rest.
type rawText struct {
	buf     strings.Builder
	dropped int64
}

func (r *rawText) write(p []byte) {
	room := maxRaw - r.buf.Len()
	if room >= len(p) {
		r.buf.Write(p)
		return
	}
	if room > 0 {
		r.buf.Write(p[:room])
	}
	r.dropped += int64(len(p) - max(room, 0))
}
