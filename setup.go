package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	sampleskills "skillet/sample-skills"

	"skillet/harness"
	"skillet/harness/chat"
	"skillet/harness/config"
	"skillet/harness/demo"
	"skillet/harness/event"
	"skillet/harness/llm"
	"skillet/harness/profile"
	"skillet/harness/rulebook"
	"skillet/harness/tools"
	"skillet/skills"
)

// listFlag collects a repeatable flag.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

// common are the flags the TUI and `skillet run` share.
type common struct {
	config     string
	skills     listFlag
	model      string
	baseURL    string
	offline    bool
	sets       listFlag
	sessionDir string
	resume     string
	tape       tapeFlags
	profile    string
	window     positiveInt
	// workspace, inPlace, network and noSandbox set up the agent tools'
	// workspace and sandbox, over skillet.toml's.
	workspace string
	inPlace   string
	network   bool
	noSandbox bool
	// replyTimeout bounds a whole model reply; 0 is the config's or the
	// default
	replyTimeout time.Duration
	// noScan leaves the catalog unread, for a caller that reads only the
	// skills it needs.
	noScan bool
	// readPace is the model client's llm.Config.ReadPace: set by the
	// terminal UI, which shows streamed text a few times a second; the
	// headless commands read each chunk as it comes.
	readPace time.Duration
}

// register adds the session flags, the tape's (--record, --replay, ...)
// among them.
func (c *common) register(fs *flag.FlagSet) {
	c.registerLive(fs)
	c.tape.register(fs)
}

// registerLive adds the session flags but the tape's, for a command whose
// sessions always ask the model itself.
func (c *common) registerLive(fs *flag.FlagSet) {
	fs.StringVar(&c.config, "config", "", "`FILE` skillet.toml to use (default ./skillet.toml when present)")
	fs.Var(&c.skills, "skills", "a skills `DIR` searched first (repeatable)")
	fs.StringVar(&c.model, "model", "", "model `NAME` sent to the endpoint (default: skillet.toml [model] name, $OPENAI_MODEL, gpt-4o-mini)")
	fs.StringVar(&c.baseURL, "base-url", "", "OpenAI-compatible endpoint `URL`; the first set of this flag, skillet.toml [model] base_url,\n"+
		"$OPENAI_BASE_URL, else https://api.openai.com/v1. With no OPENAI_API_KEY and none of\n"+
		"these set, the offline demo model answers")
	fs.DurationVar(&c.replyTimeout, "reply-timeout", 0, "the longest one model reply may take, however steadily it streams, such as 90s or 20m\n"+
		"(default: skillet.toml [model] reply_timeout, else 10m)")
	fs.BoolVar(&c.offline, "offline", false, "use the built-in offline demo model (not an LLM), even with a key set")
	fs.Var(&c.sets, "set", "`KEY=VALUE` for a limit or mode of the rule book (repeatable): "+strings.Join(event.SettingKeys(), ", "))
	fs.StringVar(&c.profile, "profile", "", "how skills reach the model: the `NAME` of a profile ("+strings.Join(profile.Names(), ", ")+");\n"+
		"default: skillet.toml profile, else skillet")
	fs.Var(&c.window, "context-window", "the model's context window in `TOKENS`, the input of a profile's listing budget\n"+
		"(default: skillet.toml context_window, else the profile's own)")
	fs.StringVar(&c.sessionDir, "session-dir", "", "`DIR` for session journals (default $XDG_STATE_HOME/skillet/sessions)")
	fs.StringVar(&c.workspace, "workspace", "", "start the agent tools' workspace as a copy of `DIR` (never changed; .git kept, ignored files left out)\n"+
		"(default: skillet.toml workspace, else an empty folder in the session folder)")
	fs.StringVar(&c.inPlace, "workspace-in-place", "", "let the agent tools work on `DIR` itself: their commands and edits change it")
	fs.BoolVar(&c.network, "network", false, "let agent shell commands reach the network (default off; skillet.toml [sandbox] network)")
	fs.BoolVar(&c.noSandbox, "no-sandbox", false, "run agent shell commands unconfined, where no sandbox can start (they can read and change\n"+
		"anything this user can)")
	fs.StringVar(&c.resume, "resume", "", "reopen a session from its journal: a session `ID` or a session folder or journal path;\n"+
		"its skills folders and config are used again unless --skills or --config is given; in the terminal UI, --resume\n"+
		"with no ID offers the recent sessions to choose from")
}

// registerSession adds the flags of a command that reads a session's
// journal: where journals are, and the skills and config to read it with
// instead of its own.
func (c *common) registerSession(fs *flag.FlagSet) {
	fs.Var(&c.skills, "skills", "a skills `DIR` searched first (repeatable; default: the session's folders)")
	fs.StringVar(&c.config, "config", "", "`FILE` skillet.toml to use instead of the session's (or ./skillet.toml)")
	fs.StringVar(&c.sessionDir, "session-dir", "", "`DIR` where session journals are (default $XDG_STATE_HOME/skillet/sessions)")
}

// wiring is everything a session needs, built from flags and config.
type wiring struct {
	cfg     *config.Config
	catalog *skills.Catalog
	model   chat.Model
	name    string
	baseURL string
	demo    bool
	server  *demo.Server
	notices []string
	// journal is the session to reopen (--resume), "" for a new one.
	journal string
	// tape records (--record) or replays (--replay) the session.
	tape *tapeWiring
}

func (w *wiring) close() {
	if w.server != nil {
		w.server.Close()
	}
	w.tape.close()
}

func (w *wiring) notice(format string, args ...any) {
	w.notices = append(w.notices, fmt.Sprintf(format, args...))
}

// usageError is a problem with how skillet was called (exit status 2).
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

// reportError prints err after who (the command's name) and returns the
// exit status: 2 for a usage error, else 1.
func reportError(stderr io.Writer, who string, err error) int {
	fmt.Fprintln(stderr, who+":", err)
	var ue usageError
	if errors.As(err, &ue) {
		return 2
	}
	return 1
}

// printNotices prints what wiring noticed (a folder gone, a flag ignored),
// a line each.
func printNotices(stderr io.Writer, w *wiring) {
	for _, n := range w.notices {
		fmt.Fprintln(stderr, "skillet: "+n)
	}
}

// wire checks the flags, loads the config, discovers the skills and picks
// the model. Everything a user can get wrong on the command line is found
// here, before any file is written.
func wire(c *common) (*wiring, error) {
	if err := checkBaseURL(c.baseURL); err != nil {
		return nil, err
	}
	if c.replyTimeout < 0 {
		return nil, usageError{fmt.Sprintf("--reply-timeout %s: want a length of time above 0, such as 90s or 20m", c.replyTimeout)}
	}
	w, err := wireSkills(c)
	if err != nil {
		return nil, err
	}
	if hasCredentials(c.baseURL) {
		w.notice("warning: --base-url holds credentials, which other local users can read in the process list; " +
			"set them in $OPENAI_BASE_URL or skillet.toml [model] base_url instead")
	}
	if err := w.createRecorder(c); err != nil {
		return nil, err
	}
	if err := w.pickModel(c, w.cfg); err != nil {
		w.close()
		return nil, err
	}
	if err := w.startTape(c); err != nil {
		w.close()
		return nil, err
	}
	return w, nil
}

// wireSkills loads the config and discovers the skills, as every command
// that reads skills does; it contacts no model.
func wireSkills(c *common) (*wiring, error) {
	cwd, err := os.Getwd()
	if err != nil {
		return nil, fmt.Errorf("working folder: %w", err)
	}
	home, _ := os.UserHomeDir()
	w := &wiring{tape: &tapeWiring{}}

	// A reopened session finds its skills where it found them before.
	var start *event.SessionStart
	if err := w.openTape(c); err != nil {
		return nil, err
	}
	if c.resume == "" {
		start = w.tape.start()
	}
	if c.resume != "" {
		if w.journal, err = resumePath(c.resume, sessionsDir(c.sessionDir)); err != nil {
			return nil, err
		}
		if start, err = harness.PeekSession(w.journal); err != nil {
			return nil, err
		}
	}
	builtin := &builtinOnce{}

	cfgPath := c.config
	if cfgPath == "" && start != nil && start.Config != "" {
		p := start.Config
		if isBuiltinDir(filepath.Dir(p)) {
			root, err := builtin.root()
			if err != nil {
				return nil, err
			}
			p = filepath.Join(root.Dir, filepath.Base(p))
		}
		if _, err := os.Stat(p); err == nil {
			cfgPath = p
		} else {
			w.notice("the session's config %s no longer exists: using ./%s or the defaults", p, config.File)
		}
	}
	cfg, err := findConfig(cfgPath, cwd)
	if err != nil {
		return nil, err
	}
	if c.config == "" && start != nil && start.CatalogOnly {
		// the session ran over its catalog alone (a bench run), without the
		// config's choice of skills, and is read back the same way
		cfg.Skills = nil
	}

	var roots []skills.Root
	// --config names the skill folders to use instead of the recorded
	// ones, when it lists any
	ownDirs := c.config != "" && len(cfg.SkillsDirs) > 0
	if c.config != "" && !ownDirs && len(c.skills) == 0 && start != nil && len(start.Roots) > 0 {
		w.notice("--config %s lists no skills_dirs: the recorded skill folders are used (--skills DIR chooses others)", c.config)
	}
	if len(c.skills) == 0 && !ownDirs && start != nil && len(start.Roots) > 0 {
		if roots, err = w.sessionRoots(start.Roots, builtin); err != nil {
			return nil, err
		}
	}
	if len(roots) == 0 {
		for _, d := range c.skills {
			if fi, err := os.Stat(d); err != nil || !fi.IsDir() {
				return nil, usageError{fmt.Sprintf("--skills %s: not a folder", d)}
			}
		}
		for _, d := range cfg.SkillsDirs {
			if fi, err := os.Stat(d); err != nil || !fi.IsDir() {
				w.notice("skills_dirs entry %s of %s is not a folder: left out", d, cfg.Path)
			}
		}
		roots = skills.DefaultRoots(c.skills, cfg.SkillsDirs, cwd, home)
	}
	if len(roots) == 0 {
		root, err := builtin.root()
		if err != nil {
			return nil, err
		}
		roots = []skills.Root{root}
		if cfg.Path == "" {
			// the samples come with their own config: preload, pins, prompt
			if cfg, err = config.Load(filepath.Join(root.Dir, config.File)); err != nil {
				return nil, err
			}
			cfg.SkillsDirs = nil
		}
		w.notice("no skills folder found: using the built-in sample skills (%s)", root.Dir)
	}
	if c.config == "" {
		// the recorded settings, unless a config was asked for
		w.tapeSettings(&cfg.Session)
	}
	for _, kv := range c.sets {
		if err := setPair(&cfg.Session, kv); err != nil {
			return nil, err
		}
	}
	if c.profile != "" {
		p, err := profile.Get(c.profile)
		if err != nil {
			return nil, usageError{"--profile: " + err.Error()}
		}
		c.profile = p.Name() // NAME@VERSION names the profile NAME
	}
	if c.window.set && c.window.n <= 0 {
		return nil, usageError{fmt.Sprintf("--context-window %d: want a positive number of tokens, such as 200000", c.window.n)}
	}
	// A reopened session keeps its own profile and settings, which its
	// journal holds; a new one is checked here, before anything starts.
	if w.journal == "" {
		prof := firstOf(c.profile, cfg.Profile, rulebook.DefaultProfile)
		if err := harness.CheckProfileSettings(prof, cfg.Session); err != nil {
			return nil, usageError{err.Error()}
		}
	}
	if err := c.applyAgentFlags(cfg); err != nil {
		return nil, err
	}
	w.cfg = cfg
	w.catalog = skills.NewCatalog(roots, cfg.ToolsDirs)
	if c.noScan {
		return w, nil
	}
	if _, err := w.catalog.Refresh(); err != nil {
		// what could be read is kept; the session goes on without the rest
		w.notice("reading skills: %v", err)
	}
	w.noticeEmptyRoots()
	return w, nil
}

// applyAgentFlags puts --workspace, --workspace-in-place, --network and
// --no-sandbox over the config's.
func (c *common) applyAgentFlags(cfg *config.Config) error {
	if c.workspace != "" && c.inPlace != "" {
		return usageError{"--workspace and --workspace-in-place: give one of them"}
	}
	for _, d := range []string{c.workspace, c.inPlace} {
		if d == "" {
			continue
		}
		if fi, err := os.Stat(d); err != nil || !fi.IsDir() {
			return usageError{fmt.Sprintf("workspace %s: not a folder", d)}
		}
	}
	abs := func(d string) string {
		if a, err := filepath.Abs(d); err == nil {
			return a
		}
		return d
	}
	if c.workspace != "" {
		cfg.Workspace, cfg.WorkspaceInPlace = abs(c.workspace), ""
	}
	if c.inPlace != "" {
		cfg.WorkspaceInPlace, cfg.Workspace = abs(c.inPlace), ""
	}
	if c.network {
		cfg.Sandbox.Network = true
	}
	if c.noSandbox {
		cfg.Sandbox.Disabled = true
	}
	return nil
}

// setPair applies one --set KEY=VALUE, naming the flag in its error once.
func setPair(s *event.Settings, kv string) error {
	k, v, ok := strings.Cut(kv, "=")
	if !ok {
		return usageError{fmt.Sprintf("--set %s: want KEY=VALUE", kv)}
	}
	if err := s.Set(k, v); err != nil {
		msg := strings.TrimPrefix(err.Error(), strings.TrimSpace(k)+": ")
		return usageError{fmt.Sprintf("--set %s: %s", kv, msg)}
	}
	return nil
}

// hasCredentials reports whether a base URL holds a password or a
// credential query parameter (llm.URLSecrets).
func hasCredentials(raw string) bool {
	u, err := url.Parse(raw)
	return err == nil && len(llm.URLSecrets(u)) > 0
}

// checkBaseURL refuses a --base-url that is not an http(s) URL.
func checkBaseURL(raw string) error {
	if raw == "" {
		return nil
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return usageError{fmt.Sprintf("--base-url %s: want an http:// or https:// URL, such as http://localhost:11434/v1", raw)}
	}
	return nil
}

// resumePath finds the journal --resume names: a session folder or journal
// path, or a session ID under the sessions folder.
func resumePath(arg, dir string) (string, error) {
	path := arg
	if _, err := os.Stat(path); err != nil {
		path = filepath.Join(dir, arg)
		if filepath.IsAbs(arg) || strings.ContainsRune(arg, filepath.Separator) {
			path = arg
		}
	}
	fi, err := os.Stat(path)
	if err != nil {
		return "", usageError{fmt.Sprintf("--resume: no session %s in %s", arg, dir)}
	}
	if fi.IsDir() {
		if _, err := os.Stat(filepath.Join(path, harness.JournalFile)); err != nil {
			return "", usageError{fmt.Sprintf("--resume: %s holds no session journal (%s)", path, harness.JournalFile)}
		}
	}
	return path, nil
}

// labelSession labels the skills roots a resumed session brings back.
const labelSession = "resumed session"

// sessionRoots are the skill folders a resumed session read, in order;
// folders that are gone are named and left out.
func (w *wiring) sessionRoots(dirs []string, builtin *builtinOnce) ([]skills.Root, error) {
	var roots []skills.Root
	for _, d := range dirs {
		if isBuiltinDir(d) {
			root, err := builtin.root()
			if err != nil {
				return nil, err
			}
			roots = append(roots, root)
			continue
		}
		if fi, err := os.Stat(d); err != nil || !fi.IsDir() {
			w.notice("the session's skills folder %s no longer exists: left out", d)
			continue
		}
		roots = append(roots, skills.Root{Dir: d, Label: labelSession})
	}
	if len(roots) == 0 {
		w.notice("none of the session's skills folders exists any more: looking for skills as usual")
	}
	return roots, nil
}

// noticeEmptyRoots names the folders the user asked for (--skills,
// skills_dirs) that hold no skill at all: a typo'd path is otherwise silent.
func (w *wiring) noticeEmptyRoots() {
	held := map[string]bool{}
	for _, s := range append(w.catalog.All(), w.catalog.Shadowed()...) {
		held[filepath.Clean(s.Root)] = true
	}
	asked := map[string]string{
		skills.LabelFlag:   "--skills folder",
		skills.LabelConfig: "skills_dirs folder",
		labelSession:       "the session's skills folder",
	}
	for _, r := range w.catalog.Roots() {
		if from, ok := asked[r.Label]; ok && !held[filepath.Clean(r.Dir)] {
			w.notice("%s %s holds no skills (no subfolder has a SKILL.md)", from, r.Dir)
		}
	}
}

// rootDirs are the catalog's folders in order, recorded in the journal
// and the eval manifest so that --resume finds the same skills.
func rootDirs(cat *skills.Catalog) []string {
	var dirs []string
	for _, r := range cat.Roots() {
		dirs = append(dirs, r.Dir)
	}
	return dirs
}

// builtinOnce materializes the built-in sample skills at most once.
type builtinOnce struct {
	r   *skills.Root
	err error
}

func (b *builtinOnce) root() (skills.Root, error) {
	if b.r == nil && b.err == nil {
		r, err := builtinRoot()
		b.r, b.err = &r, err
	}
	if b.err != nil {
		return skills.Root{}, b.err
	}
	return *b.r, nil
}

// findConfig reads --config, or ./skillet.toml when present, or defaults.
func findConfig(path, cwd string) (*config.Config, error) {
	if path != "" {
		if fi, err := os.Stat(path); err != nil || fi.IsDir() {
			return nil, usageError{fmt.Sprintf("--config %s: no such file", path)}
		}
		// absolute, so the journal names it wherever the session resumes
		if abs, err := filepath.Abs(path); err == nil {
			path = abs
		}
		return config.Load(path)
	}
	p := filepath.Join(cwd, config.File)
	if _, err := os.Stat(p); err == nil {
		return config.Load(p)
	}
	return config.Default(), nil
}

// builtinBase is the folder the embedded sample skills are written under,
// one subfolder per content hash.
func builtinBase() string {
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	return filepath.Join(cache, "skillet", "sample-skills")
}

// isBuiltinDir reports whether dir is a materialized copy of the sample
// skills (of this build or an earlier one).
func isBuiltinDir(dir string) bool {
	return filepath.Dir(filepath.Clean(dir)) == builtinBase()
}

// builtinRoot writes the embedded sample skills to the cache folder.
func builtinRoot() (skills.Root, error) {
	root, err := skills.BuiltinRoot(sampleskills.FS, builtinBase())
	if err != nil {
		return skills.Root{}, fmt.Errorf("built-in sample skills: %w", err)
	}
	return root, nil
}

// pickModel chooses the real endpoint or the offline demo model: the demo
// model when asked, or when there is neither a key nor an endpoint.
func (w *wiring) pickModel(c *common, cfg *config.Config) error {
	if w.tape.cassette != nil {
		return w.playModel(c)
	}
	env := llm.ConfigFromEnv()
	base := firstOf(c.baseURL, cfg.Model.BaseURL, os.Getenv("OPENAI_BASE_URL"))
	if c.offline || (env.APIKey == "" && base == "") {
		switch {
		case c.model == "":
		case c.offline:
			w.notice("--model %s is ignored: --offline uses the built-in demo model", c.model)
		default:
			w.notice("--model %s is ignored: with no OPENAI_API_KEY and no endpoint (--base-url, skillet.toml [model] base_url, $OPENAI_BASE_URL) the built-in demo model answers", c.model)
		}
		srv, err := demo.StartWith(demo.Options{ChunkDelay: c.tape.pacing().DemoDelay()})
		if err != nil {
			return fmt.Errorf("start the offline demo model: %w", err)
		}
		client, err := llm.New(llm.Config{BaseURL: srv.URL, HTTPClient: w.tape.httpClient(0), ReadPace: c.readPace})
		if err != nil {
			srv.Close()
			return err
		}
		w.server, w.model, w.name, w.baseURL, w.demo = srv, client, demo.ModelName, srv.URL, true
		return nil
	}
	lc := env
	if base != "" {
		lc.BaseURL = base
	}
	lc.ConnectTimeout = orDuration(cfg.Model.ConnectTimeout.Duration, lc.ConnectTimeout)
	lc.FirstByteTimeout = orDuration(cfg.Model.FirstByteTimeout.Duration, lc.FirstByteTimeout)
	lc.IdleTimeout = orDuration(cfg.Model.IdleTimeout.Duration, lc.IdleTimeout)
	lc.MaxRetryWait = cfg.Model.MaxRetryWait.Duration
	lc.ReplyTimeout = orDuration(c.replyTimeout, orDuration(cfg.Model.ReplyTimeout.Duration, lc.ReplyTimeout))
	lc.HTTPClient = w.tape.httpClient(lc.ConnectTimeout)
	lc.ReadPace = c.readPace
	client, err := llm.New(lc)
	if err != nil {
		return err
	}
	w.model, w.baseURL = client, lc.BaseURL
	w.name = firstOf(c.model, cfg.Model.Name, os.Getenv("OPENAI_MODEL"), "gpt-4o-mini")
	return nil
}

func firstOf(vals ...string) string {
	for _, v := range vals {
		if strings.TrimSpace(v) != "" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

func orDuration(v, def time.Duration) time.Duration {
	if v > 0 {
		return v
	}
	return def
}

// sessionsDir is where journals live.
func sessionsDir(flagDir string) string {
	if flagDir != "" {
		return flagDir
	}
	if d := os.Getenv("XDG_STATE_HOME"); d != "" {
		return filepath.Join(d, "skillet", "sessions")
	}
	if home, err := os.UserHomeDir(); err == nil {
		return filepath.Join(home, ".local", "state", "skillet", "sessions")
	}
	return filepath.Join(os.TempDir(), "skillet-sessions")
}

// freshFolder is the default --out of a new eval ("evals") or benchmark
// ("benches"): named for the second it starts, made unique when two start
// within one.
func freshFolder(kind string) string {
	base := filepath.Join(filepath.Dir(sessionsDir("")), kind, time.Now().UTC().Format("20060102-150405"))
	dir := base
	for i := 2; exists(dir); i++ {
		dir = fmt.Sprintf("%s-%d", base, i)
	}
	return dir
}

// sessionOptions completes opts with what the flags and wiring say: the
// config, skills and model, the journal folder, the tape and the profile.
func sessionOptions(c *common, w *wiring, opts harness.Options) harness.Options {
	opts.Config, opts.Catalog, opts.Model, opts.ModelName = w.cfg, w.catalog, w.model, w.name
	opts.BaseURL, opts.Demo, opts.Dir, opts.Roots = w.baseURL, w.demo, sessionsDir(c.sessionDir), rootDirs(w.catalog)
	opts.OnEvent = w.tape.onEvent(opts.OnEvent)
	if c.tape.tools && w.tape.cassette != nil {
		cas := w.tape.cassette
		opts.RunTool = func(ctx context.Context, call tools.Call) tools.Result {
			res, _ := cas.ServeTool(ctx, call)
			return res
		}
		opts.ReplayAgent = func(_ context.Context, id string) (harness.AgentReplay, bool) {
			t, ok := cas.ToolResult(id)
			if !ok {
				return harness.AgentReplay{}, false
			}
			return harness.AgentReplay{Content: t.Content, IsError: t.IsError, Shell: t.Shell, Changes: t.Changes}, true
		}
	}
	opts.Profile, opts.ContextWindow = c.profile, c.window.n
	return opts
}

// openSession starts a new session or reopens one (--resume).
func openSession(c *common, w *wiring, opts harness.Options) (*harness.Session, error) {
	opts = sessionOptions(c, w, opts)
	if w.journal == "" {
		return harness.New(opts)
	}
	s, err := harness.Open(w.journal, opts)
	if err != nil {
		return nil, err
	}
	// asked only when it matters, and without exact counts: those wait
	// for the tokenizer's tables
	if c.profile != "" {
		if got := s.Snapshot().Profile; c.profile != got {
			s.Close()
			return nil, usageError{fmt.Sprintf("--profile %s: the session runs under %s, and a reopened session keeps its profile (/profile NAME starts a new one)", c.profile, got)}
		}
	}
	for _, kv := range c.sets {
		k, v, _ := strings.Cut(kv, "=")
		if err := s.Set(k, v); err != nil {
			s.Close()
			return nil, err // already "set KEY: ..."
		}
	}
	return s, nil
}
