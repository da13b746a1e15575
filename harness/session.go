// Package harness is Skillet's engine: a session of turns over one
// transcript, applying the skill lifecycle rule book (DESIGN §2) at every
// model call. It composes each request, runs tools, emits typed events and
// answers snapshots; it knows nothing of the terminal.
package harness

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"iter"
	"os"
	"path/filepath"
	"skillet/harness/event"
	"skillet/harness/journal"
	"skillet/harness/paged"
	"skillet/harness/rank"
	"skillet/harness/rulebook"
	"sync"
	"time"

	"skillet/harness/chat"
	"skillet/harness/config"
	"skillet/harness/profile"
	"skillet/harness/tokens"
	"skillet/harness/tools"
	"skillet/harness/view"
	"skillet/skills"
)

// Options configure a session.
type Options struct {
	// Config is the workspace config; nil means config.Default().
	Config *config.Config
	// CatalogOnly offers every skill of the catalog, leaving out the
	// config's [[skills]] selection; session_start records it.
	CatalogOnly bool
	// Catalog holds the discovered skills; it is refreshed at every turn.
	Catalog *skills.Catalog
	// Model answers requests; ModelName is sent as the request's model.
	Model     chat.Model
	ModelName string
	// BaseURL is shown and journaled (never with credentials).
	BaseURL string
	// Demo marks the built-in offline demo model.
	Demo bool
	// RoutingOnly offers the tool that loads (activates) skills and no
	// other, for measuring which skill the model reaches for.
	RoutingOnly bool
	// RunTool, when set, answers tool calls instead of the runner: a
	// replay serves the recorded results so (--replay-tools).
	RunTool func(ctx context.Context, call tools.Call) tools.Result
	// ReplayAgent, when set, answers the profile's own tools from a
	// recording instead of running them: the recorded result, and the
	// recorded file changes made again in the workspace (--replay-tools).
	// ok false answers that the recording has no such call.
	ReplayAgent func(ctx context.Context, toolCallID string) (rec AgentReplay, ok bool)
	// Runner carries out skill and agent tools; nil makes one for the
	// config's MCP servers, logging their stderr under Dir/mcp-logs.
	Runner *tools.Runner
	// Approver answers `ask` tools (R15). Nil means headless: `ask` is
	// denied unless ApproveAll or the tool is in Approve.
	Approver   view.Approver
	ApproveAll bool
	Approve    []string
	// Dir is the folder sessions live in: each gets Dir/ID with its
	// journal, state and store files. "" keeps them in a temporary folder
	// and writes no journal.
	Dir string
	// OnEvent receives every event, in order, outside the session's lock.
	OnEvent func(event.Event)
	// OnProgress, when set, hears how far Open has read the journal: done
	// of total bytes, from the reading goroutine, after each read of the file.
	OnProgress func(done, total int64)
	// Tokenizer counts tokens; nil uses o200k_base.
	Tokenizer *tokens.Tokenizer
	// Roots are the skill folders the catalog reads, recorded in the
	// session_start event for --resume.
	Roots []string
	// Profile names how skills reach the model (package profile): ""
	// takes the config's, else skillet. ContextWindow is the model's
	// window in tokens, the input of a profile's listing budget: 0 takes
	// the config's, else the profile's default; below 0 is refused. A
	// reopened session keeps the ones its journal recorded.
	Profile       string
	ContextWindow int
	// Now and NewID make tests deterministic.
	Now   func() time.Time
	NewID func() string
}

// TokensLoaded is closed once the tokenizer's tables have loaded (or
// failed to): snapshots after it count exactly when they can.
func (s *Session) TokensLoaded() <-chan struct{} { return s.opts.Tokenizer.Loaded() }

// WarmTokenizer starts loading the default tokenizer's tables in the
// background, for a program that will show token counts soon (the TUI).
func WarmTokenizer() { tokens.Default().Warm() }

// ModelLister is a model that can list the models its endpoint offers.
type ModelLister interface {
	Models(ctx context.Context) ([]string, error)
}

// world is what the shell knows of the world outside the rule book: the
// selected skills, the ranking index, tool definitions, notices and token
// counts. Guarded by Session.mu.
type world struct {
	// World is what the rule book reads of the world.
	*rulebook.World
	// mcpSaid holds the MCP failures reported, per tool and server state.
	mcpSaid map[string]bool
	notices []string
	// agent is the session's workspace, sandbox and the profile's own
	// tools; nil when agent tools are off.
	agent *agentTools
}

// Session is one conversation (R1) and everything the rule book keeps for
// it. Its methods are safe to call from several goroutines; one turn runs
// at a time.
type Session struct {
	// opts is set at construction and never changes (Config, Catalog and
	// Tokenizer filled in).
	opts Options

	// emitMu orders events: apply, file effects, journal and OnEvent
	// happen in one order.
	emitMu sync.Mutex
	// mu guards every field below.
	mu sync.Mutex

	// st is the rule book's state; only emit writes it, through Apply.
	st *rulebook.State
	// dir is the session's folder; tempDir marks one made for a session
	// without a journal; journal is nil then.
	dir     string
	tempDir bool
	journal *journal.Writer
	model   chat.Model
	// busy is set while a turn or a command runs (see acquire).
	busy bool
	// readOnly marks a session folded for looking at (Inspect): it
	// writes no journal line and no file.
	readOnly bool
	// tok counts tokens; it has its own lock.
	tok *tokens.Counter
	// calls finds older model calls in the journal; it has its own lock.
	calls journal.CallIndex
	// hist keeps time travel's checkpoints; it has its own lock.
	hist view.Index
	// snap is what storing the fold needs to know (see SnapshotFile).
	snap snapState

	// w is what the shell knows of the world, refreshed before each
	// step.
	w world
}

// New starts a session. It fails when the config's skills cannot be
// selected (R19) or an agent tool has no definition.
func New(opts Options) (*Session, error) {
	s, err := newSession(opts)
	if err != nil {
		return nil, err
	}
	if err := s.start("", s.opts.Profile, s.opts.ContextWindow); err != nil {
		return nil, err
	}
	return s, nil
}

func newSession(opts Options) (*Session, error) {
	if opts.Catalog == nil {
		return nil, errors.New("new session: no skill catalog")
	}
	if opts.Model == nil {
		return nil, errors.New("new session: no model")
	}
	if opts.Config == nil {
		opts.Config = config.Default()
	}
	if opts.ContextWindow < 0 {
		return nil, fmt.Errorf("new session: context window %d: want a number of tokens above 0", opts.ContextWindow)
	}
	if opts.Profile == "" {
		opts.Profile = opts.Config.Profile
	}
	if opts.Profile == "" {
		opts.Profile = DefaultProfile
	}
	p, err := profile.Get(opts.Profile)
	if err != nil {
		return nil, fmt.Errorf("new session: %w", err)
	}
	opts.Profile = p.Name() // NAME@VERSION names the profile NAME
	if opts.ContextWindow == 0 {
		opts.ContextWindow = opts.Config.ContextWindow
	}
	if opts.Tokenizer == nil {
		opts.Tokenizer = tokens.Default()
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.NewID == nil {
		opts.NewID = newSessionID
	}
	if opts.Runner == nil {
		logDir := filepath.Join(os.TempDir(), "skillet-mcp-logs")
		if opts.Dir != "" {
			logDir = filepath.Join(opts.Dir, "mcp-logs")
		}
		opts.Runner = tools.NewRunner(tools.Options{MCPServers: mcpServers(opts.Config), LogDir: logDir})
	}
	opts.BaseURL = tools.RedactURL(opts.BaseURL)
	tok := tokens.NewCounter(opts.Tokenizer)
	s := &Session{opts: opts, tok: tok, w: world{World: &rulebook.World{Catalog: opts.Catalog, Rank: rank.New(), Count: tok,
		AgentTools: opts.Config.Agent.Tools, Approval: opts.Config.Approval, RoutingOnly: opts.RoutingOnly, Roots: opts.Roots, Now: opts.Now, Prompt: opts.Config.Agent.Prompt, Permissions: opts.Config.Permissions}}}
	if err := s.resolveAgentTools(); err != nil {
		return nil, err
	}
	sel, err := selectSkills(&s.opts)
	if err != nil {
		return nil, fmt.Errorf("select skills: %w", err)
	}
	s.w.Sel = sel
	s.w.notices = append(s.w.notices, profile.Notices(p, opts.ModelName, opts.ContextWindow)...)
	s.w.notices = append(s.w.notices, rulebook.SelectionNotices(sel, s.opts.Catalog.All(), configName(s.opts.Config))...)
	for _, sk := range s.opts.Catalog.Shadowed() {
		if win := s.opts.Catalog.Get(sk.Name); win != nil {
			s.w.notices = append(s.w.notices, fmt.Sprintf("skill %s in %s is shadowed by the one in %s", sk.Name, sk.Root, win.Root))
		}
	}
	for _, p := range s.opts.Catalog.ToolProblems() {
		for _, pr := range p.Problems {
			s.w.notices = append(s.w.notices, fmt.Sprintf("tool file %s: %s", p.File, pr))
		}
	}
	return s, nil
}

func configName(c *config.Config) string {
	if c.Path == "" {
		return config.File
	}
	return c.Path
}

func mcpServers(c *config.Config) map[string]tools.MCPServer {
	out := map[string]tools.MCPServer{}
	for name, srv := range c.MCP.Servers {
		out[name] = tools.MCPServer{Command: srv.Command, Args: srv.Args, Env: srv.Env, URL: srv.URL}
	}
	return out
}

// start resets the session's state to a fresh conversation with a new id
// ("" makes one) under a profile; window 0 is the profile's default.
func (s *Session) start(id, prof string, window int) error {
	p, err := profile.Get(prof)
	if err != nil {
		return err
	}
	if window <= 0 {
		window = p.DefaultWindow()
	}
	if err := CheckProfileSettings(prof, s.opts.Config.Session); err != nil {
		return err
	}
	s.mu.Lock()
	if id == "" {
		id = s.opts.NewID()
	}
	s.reset(id)
	if err := s.openDir(); err != nil {
		s.mu.Unlock()
		return err
	}
	dir, agentOn := s.dir, s.st.Settings.AgentTools && !s.opts.RoutingOnly
	s.mu.Unlock()
	var ws *event.WorkspaceInfo
	if agentOn {
		a, notices, err := s.openAgent(dir, nil)
		if err != nil {
			return err
		}
		s.with(func(f *frame) {
			f.w.agent = a
			f.w.notices = append(f.w.notices, notices...)
		})
		info := a.info
		ws = &info
	}
	s.emit(&event.SessionStart{SessionID: s.st.ID, Model: s.st.Model, BaseURL: s.opts.BaseURL, Demo: s.opts.Demo, Limits: s.st.Settings, Agent: s.opts.Config.Agent.Prompt,
		Config: s.opts.Config.Path, Roots: s.opts.Roots, Profile: prof, ContextWindow: window, ProfileAgent: p.Agent(), CatalogOnly: s.opts.CatalogOnly, Workspace: ws})
	return s.syncJournal()
}

// reset empties the session's state for a conversation with the given id.
// Called by start and reopen, which hold the lock.
func (s *Session) reset(id string) {
	s.st = rulebook.New(id, s.opts.ModelName, s.opts.Config.Session)
	s.snap = snapState{}
	s.model = s.opts.Model
	s.w.ExecHigh = 0
	s.w.MCPDefs = map[string]*skills.ToolDef{}
	s.w.MCPErrs = map[string]error{}
	s.w.mcpSaid = map[string]bool{}
	s.w.agent = nil
}

// openDir makes the session's folder and opens its journal.
func (s *Session) openDir() error {
	if s.journal != nil {
		_ = s.journal.Close()
		s.journal = nil
	}
	if s.tempDir && s.dir != "" {
		_ = os.RemoveAll(s.dir)
	}
	if s.opts.Dir == "" {
		d, err := os.MkdirTemp("", "skillet-session-")
		if err != nil {
			return fmt.Errorf("session folder: %w", err)
		}
		s.dir, s.tempDir = d, true
	} else {
		s.dir, s.tempDir = filepath.Join(s.opts.Dir, s.st.ID), false
		if err := os.MkdirAll(s.dir, 0o700); err != nil {
			return fmt.Errorf("session folder: %w", err)
		}
		j, err := journal.OpenWriter(filepath.Join(s.dir, JournalFile), nil)
		if err != nil {
			return err
		}
		j.TurnEnded = s.checkAtTurnEnd(filepath.Join(s.dir, JournalFile))
		s.journal = j
	}
	for _, sub := range []string{"state", "store"} {
		if err := os.MkdirAll(filepath.Join(s.dir, sub), 0o700); err != nil {
			return fmt.Errorf("session folder: %w", err)
		}
	}
	return nil
}

func newSessionID() string {
	var b [3]byte
	_, _ = rand.Read(b[:])
	return time.Now().UTC().Format("20060102-150405") + "-" + hex.EncodeToString(b[:])
}

// scrub hides secrets in the text an event records. Called with emitMu
// held, before anyone sees the event.
func (s *Session) scrub(e event.Event) {
	switch e := e.(type) {
	case *event.Warning:
		e.Message = s.opts.Runner.Redact(e.Message)
	case *event.Error:
		e.Message = s.opts.Runner.Redact(e.Message)
	case *event.ToolResult:
		e.Content = s.opts.Runner.Redact(e.Content)
		e.Stderr = s.opts.Runner.Redact(e.Stderr)
	}
}

// ID is the session's id.
func (s *Session) ID() string {
	return read(s, func(f *frame) string { return f.st.ID })
}

// Dir is the session's folder (journal, state and store files).
func (s *Session) Dir() string {
	return read(s, func(f *frame) string { return f.dir })
}

// journalPath is the session's journal, "" when it keeps none.
func (s *Session) journalPath() string {
	return read(s, func(f *frame) string {
		if s.journal == nil && !s.readOnly {
			return ""
		}
		return filepath.Join(f.dir, JournalFile)
	})
}

// Transcript returns the entries recorded so far, as a view: entries never
// change once recorded, and new ones do not show in it.
func (s *Session) Transcript() view.Transcript {
	return read(s, func(f *frame) view.Transcript { return f.st.Entries.View() })
}

// Marks yields the events that stand between transcript entries, in
// order, each with its Header.Entry; a reopened session has them all. The
// older ones are decoded from their pages a page at a time as they are
// yielded, after the lock: a reader that keeps only what it makes of each
// holds one page of a long session's marks, not all of them.
func (s *Session) Marks() iter.Seq[event.Event] {
	marks := read(s, func(f *frame) paged.List[event.Event] { return f.st.Marks.View() })
	return func(yield func(event.Event) bool) {
		for _, e := range marks.All() {
			if !yield(e) {
				return
			}
		}
	}
}

// ModelCalls returns every model call of the session, for the inspector:
// the latest with their request and raw reply, older ones without (memory
// does not keep them; ModelCall reads one back from the journal).
func (s *Session) ModelCalls() []rulebook.CallRecord {
	return read(s, func(f *frame) []rulebook.CallRecord { return append([]rulebook.CallRecord(nil), f.st.Calls...) })
}

// Models lists the models the endpoint offers, when the model can say.
func (s *Session) Models(ctx context.Context) ([]string, error) {
	m := read(s, func(*frame) chat.Model { return s.model })
	if l, ok := m.(ModelLister); ok {
		return l.Models(ctx)
	}
	return nil, errors.New("this model cannot list models")
}

// Close ends the session: it syncs the journal and stops tool servers.
func (s *Session) Close() error {
	s.mu.Lock()
	var errs []error
	var store func() error
	if s.journal != nil {
		// a clean close stores the fold, unless the last one covers it
		if end := s.journal.Size(); end > s.snap.at && (s.snap.at == 0 || end-s.snap.at >= snapshotCloseEvery) && end >= snapshotMin {
			store, _ = s.snapshotLocked(end) // a snapshot is a cache: none is no harm
		}
		errs = append(errs, s.journal.Close())
		s.journal = nil
	}
	if s.tempDir && !s.readOnly {
		errs = append(errs, os.RemoveAll(s.dir))
	}
	s.mu.Unlock()
	if store != nil {
		_ = store()
	}
	if s.opts.Runner != nil {
		// servers may take a while to stop: not under the lock
		errs = append(errs, s.opts.Runner.Close())
	}
	return errors.Join(errs...)
}

func (s *Session) syncJournal() error {
	j := read(s, func(*frame) *journal.Writer { return s.journal })
	if j == nil {
		return nil
	}
	return j.Sync()
}
