package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	sampleskills "skillet/sample-skills"

	"skillet/harness"
	"skillet/harness/chat"
	"skillet/harness/demo"
	"skillet/harness/llm"
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
}

func (c *common) register(fs *flag.FlagSet) {
	fs.StringVar(&c.config, "config", "", "`FILE` skillet.toml to use (default ./skillet.toml when present)")
	fs.Var(&c.skills, "skills", "a skills `DIR` searched first (repeatable)")
	fs.StringVar(&c.model, "model", "", "model `NAME` sent to the endpoint")
	fs.StringVar(&c.baseURL, "base-url", "", "OpenAI-compatible endpoint `URL` (default $OPENAI_BASE_URL, else api.openai.com)")
	fs.BoolVar(&c.offline, "offline", false, "use the built-in offline demo model (not an LLM)")
	fs.Var(&c.sets, "set", "`KEY=VALUE` for a limit or mode of the rule book (repeatable): "+strings.Join(harness.SettingKeys(), ", "))
	fs.StringVar(&c.sessionDir, "session-dir", "", "`DIR` for session journals (default $XDG_STATE_HOME/skillet/sessions)")
	fs.StringVar(&c.resume, "resume", "", "reopen a session from its journal: a session `ID` or a journal path")
}

// wiring is everything a session needs, built from flags and config.
type wiring struct {
	cfg     *harness.Config
	catalog *skills.Catalog
	model   chat.Model
	name    string
	baseURL string
	demo    bool
	server  *demo.Server
	notices []string
}

func (w *wiring) close() {
	if w.server != nil {
		w.server.Close()
	}
}

// usageError is a problem with how skillet was called (exit status 2).
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

// wire loads the config, discovers the skills and picks the model.
func wire(c *common) (*wiring, error) {
	cwd, err := os.Getwd()
	if err != nil {
		return nil, fmt.Errorf("working folder: %w", err)
	}
	home, _ := os.UserHomeDir()
	w := &wiring{}

	cfg, err := findConfig(c.config, cwd)
	if err != nil {
		return nil, err
	}
	roots := skills.DefaultRoots(c.skills, cfg.SkillsDirs, cwd, home)
	for _, d := range c.skills {
		if fi, err := os.Stat(d); err != nil || !fi.IsDir() {
			return nil, usageError{fmt.Sprintf("--skills %s: not a folder", d)}
		}
	}
	if len(roots) == 0 {
		root, err := builtinRoot()
		if err != nil {
			return nil, err
		}
		roots = []skills.Root{root}
		if cfg.Path == "" {
			// the samples come with their own config: preload, pins, prompt
			if cfg, err = harness.LoadConfig(filepath.Join(root.Dir, harness.ConfigFile)); err != nil {
				return nil, err
			}
			cfg.SkillsDirs = nil
		}
		w.notices = append(w.notices, "no skills folder found: using the built-in sample skills ("+root.Dir+")")
	}
	for _, kv := range c.sets {
		if err := cfg.Session.SetPair(kv); err != nil {
			return nil, usageError{"--set " + err.Error()}
		}
	}
	w.cfg = cfg
	w.catalog = skills.NewCatalog(roots, cfg.ToolsDirs)
	if _, err := w.catalog.Refresh(); err != nil {
		// what could be read is kept; the session goes on without the rest
		w.notices = append(w.notices, "reading skills: "+err.Error())
	}
	if err := w.pickModel(c, cfg); err != nil {
		return nil, err
	}
	return w, nil
}

// findConfig reads --config, or ./skillet.toml when present, or defaults.
func findConfig(path, cwd string) (*harness.Config, error) {
	if path != "" {
		cfg, err := harness.LoadConfig(path)
		if err != nil {
			return nil, err
		}
		return cfg, nil
	}
	p := filepath.Join(cwd, harness.ConfigFile)
	if _, err := os.Stat(p); err == nil {
		return harness.LoadConfig(p)
	}
	return harness.DefaultConfig(), nil
}

// builtinRoot writes the embedded sample skills to the cache folder.
func builtinRoot() (skills.Root, error) {
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	root, err := skills.BuiltinRoot(sampleskills.FS, filepath.Join(cache, "skillet", "sample-skills"))
	if err != nil {
		return skills.Root{}, fmt.Errorf("built-in sample skills: %w", err)
	}
	return root, nil
}

// pickModel chooses the real endpoint or the offline demo model: the demo
// model when asked, or when there is neither a key nor an endpoint.
func (w *wiring) pickModel(c *common, cfg *harness.Config) error {
	env := llm.ConfigFromEnv()
	base := firstOf(c.baseURL, cfg.Model.BaseURL, os.Getenv("OPENAI_BASE_URL"))
	if c.offline || (env.APIKey == "" && base == "") {
		srv, err := demo.Start()
		if err != nil {
			return fmt.Errorf("start the offline demo model: %w", err)
		}
		client, err := llm.New(llm.Config{BaseURL: srv.URL})
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

// openSession starts a new session or reopens one (--resume).
func openSession(c *common, w *wiring, opts harness.Options) (*harness.Session, error) {
	dir := sessionsDir(c.sessionDir)
	opts.Config, opts.Catalog, opts.Model, opts.ModelName = w.cfg, w.catalog, w.model, w.name
	opts.BaseURL, opts.Demo, opts.Dir = w.baseURL, w.demo, dir
	if c.resume == "" {
		return harness.New(opts)
	}
	path := c.resume
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		path = filepath.Join(dir, c.resume)
	}
	s, err := harness.Open(path, opts)
	if err != nil {
		return nil, err
	}
	for _, kv := range c.sets {
		k, v, _ := strings.Cut(kv, "=")
		if err := s.Set(k, v); err != nil {
			return nil, err
		}
	}
	return s, nil
}

func printNotices(out io.Writer, w *wiring, s *harness.Session) {
	for _, n := range w.notices {
		fmt.Fprintln(out, "skillet: "+n)
	}
	for _, n := range s.Snapshot().Notices {
		fmt.Fprintln(out, "skillet: "+n)
	}
}
