package sandbox

import (
	"errors"
	"io"
	"os"
	"sync"
)

// capture keeps the first bytes of a command's output and counts the rest.
// Memory stays at three times the cap however much the command prints.
type capture struct {
	mu        sync.Mutex
	keep      int
	stdout    []byte
	stderr    []byte
	both      []byte
	total     int64
	truncated bool
	killAt    int64
	overflow  chan struct{} // closed once total passes killAt
	closed    bool
}

func newCapture(keep int) *capture {
	return &capture{keep: keep, killAt: int64(keep) * killFactor, overflow: make(chan struct{})}
}

// add records p, read from stdout (err false) or stderr.
func (c *capture) add(p []byte, isErr bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.total += int64(len(p))
	dst := &c.stdout
	if isErr {
		dst = &c.stderr
	}
	if !appendCapped(dst, p, c.keep) {
		c.truncated = true
	}
	if !appendCapped(&c.both, p, c.keep) {
		c.truncated = true
	}
	if c.total > c.killAt && !c.closed {
		c.closed = true
		close(c.overflow)
	}
}

// appendCapped appends what fits of p under limit and reports whether all did.
func appendCapped(dst *[]byte, p []byte, limit int) bool {
	room := limit - len(*dst)
	if room >= len(p) {
		*dst = append(*dst, p...)
		return true
	}
	if room > 0 {
		*dst = append(*dst, p[:room]...)
	}
	return false
}

// pump reads r into c until EOF or until r is closed under it.
func (c *capture) pump(r *os.File, isErr bool, wg *sync.WaitGroup) {
	defer wg.Done()
	buf := make([]byte, 32<<10)
	for {
		n, err := r.Read(buf)
		if n > 0 {
			c.add(buf[:n], isErr)
		}
		if err != nil {
			if !errors.Is(err, io.EOF) && !errors.Is(err, os.ErrClosed) {
				c.add([]byte("\n[sandbox: reading output: "+err.Error()+"]\n"), true)
			}
			return
		}
	}
}

// fill copies what was captured into res.
func (c *capture) fill(res *Result) {
	c.mu.Lock()
	defer c.mu.Unlock()
	res.Stdout, res.Stderr, res.Output = c.stdout, c.stderr, c.both
	res.OutputBytes = c.total
	res.Truncated = c.truncated
}
