package main

import (
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"sync"
	"time"

	"skillet/harness/cassette"
	"skillet/harness/event"
	"skillet/harness/llm"
	"skillet/harness/rulebook"
)

// tapeFlags are the record, replay and pacing flags of the TUI and
// `skillet run`.
type tapeFlags struct {
	record  string
	replay  string
	lenient bool
	pace    paceFlag
	typing  bool
	// tools serves the recorded tool results instead of running the tools
	tools bool
}

func (t *tapeFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&t.record, "record", "", "record the session to the cassette `FILE` (JSON lines; never holds the API key)")
	fs.StringVar(&t.replay, "replay", "", "replay the cassette `FILE` as the model, offline; each request must equal the recorded one")
	fs.BoolVar(&t.lenient, "lenient", false, "with --replay: serve the recorded reply to a request that differs, as long as its tool calls\n"+
		"are the recorded ones (the difference is shown as a warning)")
	fs.Var(&t.pace, "pace", "`SPEED` of replies: 0 instant (the default), 1 as recorded, 2 twice as fast; pauses over 2s\n"+
		"are cut to 2s. The demo model takes it too")
	fs.BoolVar(&t.typing, "typing", false, "stream every reply visibly, piece by piece")
	fs.BoolVar(&t.tools, "replay-tools", false, "with --replay: answer tool calls with the recorded results instead of running the tools")
}

func (t *tapeFlags) pacing() cassette.Pace {
	return cassette.Pace{Speed: float64(t.pace), Typing: t.typing}
}

// paceFlag is --pace: a speed of 0 or more.
type paceFlag float64

func (p *paceFlag) String() string { return strconv.FormatFloat(float64(*p), 'g', -1, 64) }

func (p *paceFlag) Set(s string) error {
	v, err := cassette.ParsePace(s)
	if err != nil {
		return errors.New("want a number, 0 or more (0 instant, 1 as recorded, 2 twice as fast)")
	}
	*p = paceFlag(v)
	return nil
}

// tapeWiring is the cassette being written or played.
type tapeWiring struct {
	cassette *cassette.Cassette
	player   *cassette.Player
	recorder *cassette.Recorder
	// report hears lenient mismatches; until the session can show them,
	// they are kept.
	mu      sync.Mutex
	report  func(*cassette.Mismatch)
	waiting []*cassette.Mismatch
	// calls counts the session's model calls; last is the latest one's
	// decision, for a replay to compare with the recorded one.
	calls int
	last  *cassette.Decision
}

func (t *tapeWiring) close() {
	if t.player != nil {
		t.player.Close()
	}
	if t.recorder != nil {
		t.recorder.Close()
	}
}

// openTape reads the --replay cassette and checks the tape flags.
func (w *wiring) openTape(c *common) error {
	t := &c.tape
	if t.replay == "" {
		if t.lenient {
			return usageError{"--lenient needs --replay FILE"}
		}
		if t.tools {
			return usageError{"--replay-tools needs --replay FILE"}
		}
		return nil
	}
	if t.record != "" && sameFile(t.record, t.replay) {
		return usageError{fmt.Sprintf("--record %s: that is the cassette --replay plays", t.record)}
	}
	cas, err := cassette.Open(t.replay)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return usageError{fmt.Sprintf("--replay %s: no such file", t.replay)}
		}
		return err
	}
	w.tape.cassette = cas
	// as with the settings, the recorded profile and window compose the
	// replay's requests unless a flag says otherwise; a resumed session
	// keeps its own
	if c.resume == "" {
		if c.profile == "" {
			c.profile = cas.Header.Profile
		}
		if !c.window.set && cas.Header.ContextWindow > 0 {
			c.window = positiveInt{n: cas.Header.ContextWindow, set: true}
		}
	}
	if v := cassette.Version(); cas.Header.Skillet != v {
		w.notice("the cassette was recorded by Skillet %s; this is %s: replaying anyway", cas.Header.Skillet, v)
	}
	if cas.Truncated {
		w.notice("cassette %s: %s", t.replay, cas.Problem)
	}
	return nil
}

func sameFile(a, b string) bool {
	fa, err1 := os.Stat(a)
	fb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(fa, fb)
}

// start is where a replay finds its skills and config when no flag says:
// where the recording found them.
func (t *tapeWiring) start() *event.SessionStart {
	if t.cassette == nil || (t.cassette.Header.Config == "" && len(t.cassette.Header.Roots) == 0) {
		return nil
	}
	return &event.SessionStart{Config: t.cassette.Header.Config, Roots: t.cassette.Header.Roots}
}

// tapeSettings applies the recorded settings, so a replay composes its
// requests as the recording did; --set still wins.
func (w *wiring) tapeSettings(s *event.Settings) {
	if w.tape.cassette == nil {
		return
	}
	for _, k := range event.SettingKeys() {
		want, ok := w.tape.cassette.Header.Settings[k]
		if !ok {
			continue
		}
		if have, err := s.Get(k); err == nil && have != want {
			if err := s.Set(k, want); err != nil {
				w.notice("the cassette's setting %s=%s: %v", k, want, err)
			}
		}
	}
}

// playModel serves the cassette on loopback and talks to it with the real
// client, so the replay takes the path a live session does.
func (w *wiring) playModel(c *common) error {
	cas := w.tape.cassette
	for _, n := range cassette.SkillChanges(cas.Header.Skills, cassette.HashSkills(w.catalog.All())) {
		w.notice("%s", n)
	}
	p, err := cassette.Play(cas, cassette.PlayOptions{Pace: c.tape.pacing(), Lenient: c.tape.lenient,
		OnMismatch: w.tape.mismatch, Decision: w.tape.decision})
	if err != nil {
		return err
	}
	// The client retries as it did live: a recorded 429, 503 or dropped
	// connection is followed by the recorded retry, and the player's own
	// refusals (409) are never retried.
	client, err := llm.New(llm.Config{BaseURL: p.URL, HTTPClient: w.tape.httpClient(0)})
	if err != nil {
		p.Close()
		return err
	}
	w.tape.player, w.model, w.baseURL, w.demo = p, client, p.URL, cas.Header.Demo
	w.name = firstOf(c.model, cas.Header.Model)
	w.notice("replaying %s: %d model calls recorded with %s (%s), offline", c.tape.replay, len(cas.Calls), cas.Header.Model, cas.Header.Endpoint)
	if c.offline || c.baseURL != "" {
		w.notice("--offline and --base-url are ignored: --replay answers with the recorded replies")
	}
	if c.model != "" && c.model != cas.Header.Model {
		w.notice("--model %s is sent instead of the recorded %s", c.model, cas.Header.Model)
	}
	return nil
}

// mismatch shows a lenient replay's difference as soon as a session can.
func (t *tapeWiring) mismatch(m *cassette.Mismatch) {
	if m.Fatal {
		return // the request fails with the same text
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.report != nil {
		t.report(m)
		return
	}
	t.waiting = append(t.waiting, m)
}

// reportTo sends lenient mismatches to report from now on.
func (t *tapeWiring) reportTo(report func(*cassette.Mismatch)) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.report = report
	for _, m := range t.waiting {
		report(m)
	}
	t.waiting = nil
}

// httpClient is the model client's HTTP client: nil (the client's own)
// unless the session is recorded.
func (t *tapeWiring) httpClient(connect time.Duration) *http.Client {
	if t.recorder == nil {
		return nil
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	if connect > 0 {
		tr.DialContext = (&net.Dialer{Timeout: connect, KeepAlive: 30 * time.Second}).DialContext
		tr.TLSHandshakeTimeout = connect
	}
	return &http.Client{Transport: t.recorder.Transport(tr)}
}

// createRecorder makes the --record file before the model is picked, so
// the model's client records through it.
func (w *wiring) createRecorder(c *common) error {
	if c.tape.record == "" {
		return nil
	}
	var secrets []string
	if key := os.Getenv("OPENAI_API_KEY"); len(key) >= llm.MinHiddenKey {
		// as the client hides a key: a placeholder ("none", "ollama") is
		// no secret, and cutting a common word out of every body would
		// garble the recording
		secrets = append(secrets, key)
	}
	for _, raw := range []string{c.baseURL, w.cfg.Model.BaseURL, os.Getenv("OPENAI_BASE_URL")} {
		if u, err := url.Parse(raw); err == nil {
			// the password, user:password (whose base64 is the Basic
			// Authorization value) and credential query parameters
			secrets = append(secrets, llm.URLSecrets(u)...)
			if u.User != nil {
				secrets = append(secrets, u.User.Username())
			}
		}
	}
	rec, err := cassette.Create(c.tape.record, secrets...)
	if err != nil {
		return usageError{fmt.Sprintf("--record %s: %v", c.tape.record, errors.Unwrap(err))}
	}
	w.tape.recorder = rec
	return nil
}

// startTape writes the cassette's header once the session's model and
// skills are known.
func (w *wiring) startTape(c *common) error {
	rec := w.tape.recorder
	if rec == nil {
		return nil
	}
	settings := map[string]string{}
	for _, k := range event.SettingKeys() {
		if v, err := w.cfg.Session.Get(k); err == nil {
			settings[k] = v
		}
	}
	h := cassette.Header{Model: w.name, Endpoint: w.baseURL, Demo: w.demo, Settings: settings,
		Config: w.cfg.Path, Roots: rootDirs(w.catalog), Skills: cassette.HashSkills(w.catalog.All()),
		Profile: firstOf(c.profile, w.cfg.Profile, rulebook.DefaultProfile), ContextWindow: c.window.n}
	if h.ContextWindow == 0 {
		h.ContextWindow = w.cfg.ContextWindow
	}
	if w.tape.cassette != nil {
		h.Endpoint = "replay of " + c.tape.replay
	}
	if err := rec.Start(h); err != nil {
		return fmt.Errorf("--record %s: %w", c.tape.record, err)
	}
	return nil
}

// onEvent records the session's events on the cassette and follows its
// model calls' decisions for a replay, then hands the events on.
func (t *tapeWiring) onEvent(next func(event.Event)) func(event.Event) {
	rec := t.recorder
	if rec == nil && t.player == nil {
		return next
	}
	return func(ev event.Event) {
		if mc, ok := ev.(*event.ModelCall); ok {
			t.mu.Lock()
			t.calls, t.last = t.calls+1, cassette.DecisionOf(mc)
			t.mu.Unlock()
		}
		if rec != nil {
			rec.OnEvent(ev)
		}
		if next != nil {
			next(ev)
		}
	}
}

// decision is the latest model call's decision and the calls made so far.
func (t *tapeWiring) decision() (int, *cassette.Decision) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.calls, t.last
}

// endNote says, after a session, that its cassette could not be written
// whole, or that a replay asked for fewer calls than the cassette holds;
// "" otherwise.
func (t *tapeWiring) endNote() string {
	if t.recorder != nil {
		if err := t.recorder.Err(); err != nil {
			return fmt.Sprintf("the cassette is incomplete: %v", err)
		}
	}
	if t.player == nil {
		return ""
	}
	if n, all := t.player.Served(), len(t.cassette.Calls); n < all {
		return fmt.Sprintf("replay: the session made %d of the cassette's %d model calls", n, all)
	}
	return ""
}
