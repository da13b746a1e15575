package cassette

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"skillet/harness/event"
	"skillet/harness/llm"
)

// Recorder writes a cassette as a session runs. Its Transport records every
// model request and reply; its OnEvent records tool results, the user's
// actions and the rule book's decisions. It is safe for concurrent use.
type Recorder struct {
	mu      sync.Mutex
	f       *os.File
	secrets []string
	calls   int
	err     error
	// approvals waits for the tool result of an approved or denied call.
	approvals map[string]event.Decision
	// args holds each tool call's arguments until its result comes.
	args map[string]string
	// changes are the workspace changes of tool calls whose results are
	// not recorded yet.
	changes map[string][]event.FileChange
	clock   func() time.Time
}

// Create makes the cassette file at path; Start writes its header. Every
// string of secrets (API keys, tokens) is cut out of whatever is recorded.
func Create(path string, secrets ...string) (*Recorder, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return nil, fmt.Errorf("create cassette: %w", err)
	}
	r := &Recorder{f: f, approvals: map[string]event.Decision{}, args: map[string]string{}, changes: map[string][]event.FileChange{}, clock: time.Now}
	for _, s := range secrets {
		if strings.TrimSpace(s) != "" {
			// every encoding a server or a tool could echo it in
			r.secrets = append(r.secrets, llm.SecretForms(s)...)
		}
	}
	slices.Sort(r.secrets)
	r.secrets = slices.Compact(r.secrets)
	// the longest first, so that one secret inside another is cut whole
	slices.SortStableFunc(r.secrets, func(a, b string) int { return len(b) - len(a) })
	return r, nil
}

// Start writes the header, before the session's first model call. The
// endpoint is cut to what holds no secret; an empty Skillet field is this
// build's Version.
func (r *Recorder) Start(h Header) error {
	h.Kind, h.Format = KindHeader, Format
	h.Endpoint = r.scrub(Endpoint(h.Endpoint))
	if h.Skillet == "" {
		h.Skillet = Version()
	}
	for k, v := range h.Settings {
		h.Settings[k] = r.scrub(v)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.write(h)
	return r.err
}

// Err is the first write error, nil while the cassette is whole.
func (r *Recorder) Err() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.err
}

// Close closes the cassette file.
func (r *Recorder) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.f == nil {
		return r.err
	}
	err := r.f.Close()
	r.f = nil
	if r.err == nil && err != nil {
		r.err = fmt.Errorf("close cassette: %w", err)
	}
	return r.err
}

// scrub cuts every secret out of s.
func (r *Recorder) scrub(s string) string {
	for _, k := range r.secrets {
		s = strings.ReplaceAll(s, k, llm.RedactedKey)
	}
	return s
}

// write appends one line. Each line goes out with one write, so a crash
// leaves at most the last line cut.
func (r *Recorder) write(v any) {
	if r.err != nil || r.f == nil {
		return
	}
	b, err := encodeLine(v)
	if err == nil {
		_, err = r.f.Write(b)
	}
	if err != nil {
		r.err = fmt.Errorf("write cassette: %w", err)
	}
}

func (r *Recorder) writeLocked(v any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.write(v)
}

// Transport records the round trips of next (http.DefaultTransport when
// nil). Request headers are never recorded.
func (r *Recorder) Transport(next http.RoundTripper) http.RoundTripper {
	if next == nil {
		next = http.DefaultTransport
	}
	return &recordingTransport{rec: r, next: next}
}

type recordingTransport struct {
	rec  *Recorder
	next http.RoundTripper
}

func (t *recordingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	var body []byte
	if req.Body != nil {
		b, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, fmt.Errorf("record request: %w", err)
		}
		body = b
		req.Body = io.NopCloser(bytes.NewReader(b))
	}
	r := t.rec
	r.mu.Lock()
	r.calls++
	call := &Call{Kind: KindCall, N: r.calls}
	r.mu.Unlock()
	setBody(call, r.scrub(string(body)))

	start := r.clock()
	resp, err := t.next.RoundTrip(req)
	if err != nil {
		call.Error = r.scrub(err.Error())
		r.writeLocked(call)
		return nil, err
	}
	call.Status = resp.StatusCode
	call.ContentType = resp.Header.Get("Content-Type")
	call.RetryAfter = resp.Header.Get("Retry-After")
	resp.Body = &recordingBody{rc: resp.Body, rec: r, call: call, start: start}
	return resp, nil
}

// setBody keeps a compact JSON body as JSON (readable in the file, and
// written back byte for byte), any other body as text.
func setBody(c *Call, body string) {
	var buf bytes.Buffer
	if json.Valid([]byte(body)) && json.Compact(&buf, []byte(body)) == nil && buf.String() == body {
		c.Request = json.RawMessage(body)
		return
	}
	c.RequestText = body
}

// recordingBody splits the reply into server-sent events as they arrive,
// cuts the secrets from each, and writes the call's line when the body
// ends or is closed, once the secrets split across events are cut too.
type recordingBody struct {
	// mu guards what follows rc: a watchdog may Close while Read runs.
	mu    sync.Mutex
	rc    io.ReadCloser
	rec   *Recorder
	call  *Call
	start time.Time
	pend  []byte
	done  bool
}

func (b *recordingBody) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	b.mu.Lock()
	defer b.mu.Unlock()
	if n > 0 {
		b.pend = append(b.pend, p[:n]...)
		for {
			end := eventEnd(b.pend)
			if end < 0 {
				break
			}
			b.emit(b.pend[:end])
			b.pend = b.pend[end:]
		}
	}
	if err != nil {
		b.finish(err != io.EOF)
	}
	return n, err
}

// eventEnd is where the first server-sent event of p ends (after its blank
// line, LF or CRLF), -1 when p holds no whole event yet.
func eventEnd(p []byte) int {
	lf, crlf := bytes.Index(p, []byte("\n\n")), bytes.Index(p, []byte("\r\n\r\n"))
	switch {
	case lf >= 0 && (crlf < 0 || lf < crlf):
		return lf + 2
	case crlf >= 0:
		return crlf + 4
	}
	return -1
}

func (b *recordingBody) emit(data []byte) {
	ms := float64(b.rec.clock().Sub(b.start).Microseconds()) / 1000
	b.call.Chunks = append(b.call.Chunks, newChunk(ms, []byte(b.rec.scrub(string(data)))))
}

func (b *recordingBody) finish(cut bool) {
	if b.done {
		return
	}
	b.done = true
	if len(b.pend) > 0 {
		b.emit(b.pend)
		b.pend = nil
	}
	b.call.Cut = cut
	b.scrubAcross()
	b.rec.writeLocked(b.call)
}

// scrubAcross cuts the secrets a server echoed split across events, which
// no one chunk holds (llm.ScrubEvents).
func (b *recordingBody) scrubAcross() {
	if len(b.call.Chunks) < 2 || len(b.rec.secrets) == 0 {
		return
	}
	events := make([]string, len(b.call.Chunks))
	for i, c := range b.call.Chunks {
		events[i] = string(c.Bytes())
	}
	for i, ev := range llm.ScrubEvents(events, b.rec.secrets) {
		if ev != events[i] {
			b.call.Chunks[i] = newChunk(b.call.Chunks[i].MS, []byte(ev))
		}
	}
}

func (b *recordingBody) Close() error {
	b.mu.Lock()
	if !b.done {
		// closed before its end: the turn was cancelled or the reply failed
		b.finish(true)
	}
	b.mu.Unlock()
	return b.rc.Close()
}

// OnEvent records what replay needs from the session's events: the user's
// messages and hand-made loads, unloads and settings, every tool result
// (with how an ask tool was answered) and each turn's decisions.
func (r *Recorder) OnEvent(ev event.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch x := ev.(type) {
	case *event.TurnStart:
		r.write(Action{Kind: KindAction, Action: ActionTurn, Text: r.scrub(x.Text)})
	case *event.SkillLoaded:
		if x.By == "user" {
			r.write(Action{Kind: KindAction, Action: ActionLoad, Skill: x.Skill})
		}
	case *event.SkillActivated:
		if x.By == "user" {
			r.write(Action{Kind: KindAction, Action: ActionLoad, Skill: x.Skill})
		}
	case *event.SkillUnloaded:
		if x.Reason == "user" {
			r.write(Action{Kind: KindAction, Action: ActionUnload, Skill: x.Skill})
		}
	case *event.SettingChanged:
		r.write(Action{Kind: KindAction, Action: ActionSet, Key: x.Key, Value: r.scrub(x.Value)})
	case *event.Approval:
		r.approvals[x.ToolCallID] = x.Decision
	case *event.Assistant:
		for _, tc := range x.ToolCalls {
			r.args[tc.ID] = tc.Arguments
		}
	case *event.WorkspaceChanged:
		changes := append([]event.FileChange(nil), x.Changes...)
		for i := range changes {
			if !changes[i].Base64 {
				changes[i].Content = r.scrub(changes[i].Content)
			}
		}
		r.changes[x.ToolCallID] = changes
	case *event.ToolResult:
		t := Tool{Kind: KindTool, Turn: x.Turn, ToolCallID: x.ToolCallID, Name: x.Name,
			Arguments: r.scrub(r.args[x.ToolCallID]), Content: r.scrub(x.Content), IsError: x.IsError, Refused: x.Refused, Approval: r.approvals[x.ToolCallID],
			Changes: r.changes[x.ToolCallID]}
		if x.Shell != nil {
			sh := *x.Shell
			sh.Command, sh.Output = r.scrub(sh.Command), r.scrub(sh.Output)
			t.Shell = &sh
		}
		delete(r.approvals, x.ToolCallID)
		delete(r.args, x.ToolCallID)
		delete(r.changes, x.ToolCallID)
		r.write(t)
	case *event.ModelCall:
		r.write(DecisionOf(x))
	case *event.TurnEnd:
		r.write(TurnEnd{Kind: KindTurn, Turn: x.Turn, Offered: x.Offered, Delivered: x.Delivered, Loaded: x.Loaded, Stop: x.StopReason})
	}
}
