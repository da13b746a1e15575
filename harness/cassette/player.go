package cassette

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"skillet/harness/reqdelta"
)

// Mismatch is a request that differs from the one recorded at its place.
type Mismatch struct {
	// Call is the call's number in the cassette, from 1.
	Call int
	// Lines say what changed (Delta).
	Lines []string
	// Fatal is set when the recorded reply was not served: strict replay,
	// or a lenient one whose tool calls went another way.
	Fatal bool
	// Reason is the one-line summary.
	Reason string
}

// Error is the summary and the changes, one per line.
func (m *Mismatch) Error() string {
	return m.Reason + ":\n  " + strings.Join(m.Lines, "\n  ")
}

// PlayOptions tune a Player.
type PlayOptions struct {
	Pace Pace
	// Lenient serves the recorded reply to a request that differs from the
	// recording, as long as its call index and tool-call sequence match.
	Lenient bool
	// OnMismatch hears of each request that differs, fatal or not. It runs
	// on the server's goroutine.
	OnMismatch func(*Mismatch)
	// Decision gives the rule book's decision for the request being made
	// and how many model calls the session has made so far, so a delta can
	// say which decision it changed; nil leaves decisions out.
	Decision func() (calls int, d *Decision)
}

// Player serves a cassette's recorded replies as a chat-completions
// endpoint on loopback: the Nth request gets the Nth recorded reply, paced,
// once it matches the recorded request.
type Player struct {
	// URL is the base URL to give a chat-completions client; it ends in /v1.
	URL string

	c    *Cassette
	opts PlayOptions
	srv  *http.Server
	done chan struct{}

	mu         sync.Mutex
	next       int
	mismatches []*Mismatch
	ended      string
	// stopped is set by the first fatal mismatch: what the session asks
	// after it would get replies recorded for another conversation.
	stopped string
}

// Play serves c on 127.0.0.1 at a free port.
func Play(c *Cassette, opts PlayOptions) (*Player, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("replay: listen on loopback: %w", err)
	}
	p := &Player{URL: "http://" + ln.Addr().String() + "/v1", c: c, opts: opts, done: make(chan struct{})}
	mux := http.NewServeMux()
	mux.HandleFunc("/v1/chat/completions", p.completions)
	mux.HandleFunc("/v1/models", p.models)
	p.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		defer close(p.done)
		_ = p.srv.Serve(ln) // returns http.ErrServerClosed once Close runs
	}()
	return p, nil
}

// Close stops serving and cuts any reply still streaming.
func (p *Player) Close() error {
	err := p.srv.Close()
	<-p.done
	if err != nil {
		return fmt.Errorf("stop replay: %w", err)
	}
	return nil
}

// Served is how many recorded calls were asked for so far.
func (p *Player) Served() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.next
}

// Mismatches are the requests that differed from the recording, in order.
func (p *Player) Mismatches() []*Mismatch {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]*Mismatch(nil), p.mismatches...)
}

// Ended says why a request went past the recording, "" while none did.
func (p *Player) Ended() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.ended
}

func (p *Player) models(w http.ResponseWriter, r *http.Request) {
	type model struct {
		ID     string `json:"id"`
		Object string `json:"object"`
	}
	writeJSON(w, http.StatusOK, map[string]any{"object": "list", "data": []model{{ID: p.c.Header.Model, Object: "model"}}})
}

// statusMismatch answers a request replay cannot serve: one that differs
// from the recording, or one past its end. No client retries it.
const statusMismatch = http.StatusConflict

func (p *Player) completions(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	if err != nil {
		writeError(w, http.StatusBadRequest, "replay: read request: "+err.Error())
		return
	}
	p.mu.Lock()
	if p.stopped != "" {
		stopped := p.stopped
		p.mu.Unlock()
		writeError(w, statusMismatch, stopped)
		return
	}
	n := p.next
	p.next++
	if n >= len(p.c.Calls) && p.ended == "" {
		p.ended = p.endText(n)
	}
	ended := p.ended
	p.mu.Unlock()
	if n >= len(p.c.Calls) {
		writeError(w, statusMismatch, ended)
		return
	}
	rec := p.c.Calls[n]
	if m := p.check(rec, body); m != nil {
		p.mu.Lock()
		p.mismatches = append(p.mismatches, m)
		if m.Fatal {
			p.stopped = fmt.Sprintf("replay: stopped at request %d, which differed from the recording; nothing more is served", rec.N)
		}
		p.mu.Unlock()
		if p.opts.OnMismatch != nil {
			p.opts.OnMismatch(m)
		}
		if m.Fatal {
			writeError(w, statusMismatch, m.Error())
			return
		}
	}
	p.serve(w, r, rec)
}

func (p *Player) endText(n int) string {
	if p.c.Truncated {
		return fmt.Sprintf("replay: the cassette ends after call %d (%s); call %d has no recorded reply", len(p.c.Calls), p.c.Problem, n+1)
	}
	return fmt.Sprintf("replay: the cassette holds %d model calls; this session asked for call %d, past the end of the recording", len(p.c.Calls), n+1)
}

// check compares a request with the recorded one: nil when they are equal
// as JSON.
func (p *Player) check(rec *Call, body []byte) *Mismatch {
	recorded := rec.Body()
	if Same(recorded, body) {
		return nil
	}
	// each body is read once for the delta and the tool calls both
	was, errWas := reqdelta.Parse(recorded)
	is, errIs := reqdelta.Parse(body)
	m := &Mismatch{Call: rec.N, Lines: parsedDelta(was, errWas, is, errIs)}
	if p.opts.Decision != nil {
		if k, now := p.opts.Decision(); k >= 1 && k <= len(p.c.Decisions) {
			m.Lines = append(m.Lines, DecisionDelta(p.c.Decisions[k-1], now)...)
		}
	}
	if !p.opts.Lenient {
		m.Fatal = true
		m.Reason = fmt.Sprintf("replay: request %d differs from the recording (strict replay stops here; --lenient replays anyway)", rec.N)
		return m
	}
	var wasCalls, isCalls []string
	if errWas == nil {
		wasCalls = was.ToolSequence()
	}
	if errIs == nil {
		isCalls = is.ToolSequence()
	}
	if errWas != nil || errIs != nil || strings.Join(wasCalls, "\n") != strings.Join(isCalls, "\n") {
		m.Fatal = true
		m.Reason = fmt.Sprintf("replay: request %d went another way than the recording: its tool calls are %s, recorded %s; the recorded reply no longer fits",
			rec.N, orNone(strings.Join(isCalls, "; ")), orNone(strings.Join(wasCalls, "; ")))
		return m
	}
	m.Reason = fmt.Sprintf("replay: request %d differs from the recording (replayed leniently)", rec.N)
	return m
}

// serve writes the recorded reply, each chunk after its recorded gap at the
// player's pace. A call that got no reply is answered by closing the
// connection.
func (p *Player) serve(w http.ResponseWriter, r *http.Request, rec *Call) {
	if rec.Error != "" && rec.Status == 0 {
		if hj, ok := w.(http.Hijacker); ok {
			if conn, _, err := hj.Hijack(); err == nil {
				conn.Close()
				return
			}
		}
		writeError(w, http.StatusBadGateway, "replay: the recorded call failed: "+rec.Error)
		return
	}
	if rec.ContentType != "" {
		w.Header().Set("Content-Type", rec.ContentType)
	}
	if rec.RetryAfter != "" {
		w.Header().Set("Retry-After", rec.RetryAfter)
	}
	status := rec.Status
	if status == 0 {
		status = http.StatusOK
	}
	w.WriteHeader(status)
	rc := http.NewResponseController(w)
	_ = rc.Flush()
	prev := 0.0
	for _, ch := range rec.Chunks {
		gap := time.Duration((ch.MS - prev) * float64(time.Millisecond))
		prev = ch.MS
		if d := p.opts.Pace.Gap(gap); d > 0 {
			t := time.NewTimer(d)
			select {
			case <-r.Context().Done():
				t.Stop()
				return
			case <-t.C:
			}
		}
		if _, err := w.Write(ch.Bytes()); err != nil {
			return // the client left
		}
		_ = rc.Flush()
	}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	b, _ := json.Marshal(v)
	_, _ = w.Write(append(b, '\n')) // a write error means the client left
}

func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]any{"error": map[string]any{"message": msg, "type": "replay_mismatch"}})
}
