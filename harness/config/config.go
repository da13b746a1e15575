// Package config reads skillet.toml: the workspace's skills, model, agent,
// sandbox, permissions and session settings, each value checked.
package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"skillet/harness/event"
	"skillet/harness/profile"
	"skillet/harness/rulebook"
	"skillet/skills"
)

// File is the workspace config's file name.
const File = "skillet.toml"

// Config is a parsed skillet.toml. Paths in it are resolved against the
// file's folder.
type Config struct {
	// Path is the file it came from, "" for the built-in defaults.
	Path string `toml:"-"`
	// SkillsDirs are extra discovery roots, searched before the defaults.
	SkillsDirs []string `toml:"skills_dirs"`
	// ToolsDirs are workspace-wide tool folders.
	ToolsDirs []string          `toml:"tools_dirs"`
	Model     Model             `toml:"model"`
	Agent     Agent             `toml:"agent"`
	Approval  map[string]string `toml:"approval"`
	Session   event.Settings    `toml:"session"`
	Skills    []SkillRef        `toml:"skills"`
	MCP       MCP               `toml:"mcp"`
	// Profile is how skills reach the model (package profile), "" for
	// skillet; ContextWindow the model's window in tokens, 0 for the
	// profile's default. --profile and --context-window win over both.
	Profile       string `toml:"profile"`
	ContextWindow int    `toml:"context_window"`
	// Workspace is a folder the session's workspace starts as a copy of;
	// WorkspaceInPlace one the agent tools work on directly. Relative to
	// this file; --workspace and --workspace-in-place win over both.
	Workspace        string       `toml:"workspace"`
	WorkspaceInPlace string       `toml:"workspace_in_place"`
	Sandbox          Sandbox      `toml:"sandbox"`
	Permissions      []Permission `toml:"permissions"`
}

// Model is the [model] table. The API key never comes from a file.
type Model struct {
	Name             string   `toml:"name"`
	BaseURL          string   `toml:"base_url"`
	ConnectTimeout   Duration `toml:"connect_timeout"`
	FirstByteTimeout Duration `toml:"first_byte_timeout"`
	IdleTimeout      Duration `toml:"idle_timeout"`
	// MaxRetryWait is the longest Retry-After a 429 or 503 is honoured
	// for (default 5 minutes).
	MaxRetryWait Duration `toml:"max_retry_wait"`
	// ReplyTimeout bounds a whole reply, however steadily it streams.
	ReplyTimeout Duration `toml:"reply_timeout"`
}

// Agent is the [agent] table: the prompt and the agent's own tools.
type Agent struct {
	Prompt string     `toml:"prompt"`
	Tools  []AgentRef `toml:"tools"`
}

// AgentRef is the agent's own reference to a tool (see
// rulebook.AgentTool).
type AgentRef = rulebook.AgentTool

// SkillRef is one [[skills]] entry (R19). Version may be written as a
// number or a string.
type SkillRef struct {
	Name    string `toml:"name"`
	Version any    `toml:"version"`
	Preload bool   `toml:"preload"`
}

// MCP is the [mcp] table.
type MCP struct {
	Servers map[string]MCPServer `toml:"servers"`
}

// MCPServer declares one MCP server: a command or a streamable-HTTP URL.
type MCPServer struct {
	Command string            `toml:"command"`
	Args    []string          `toml:"args"`
	Env     map[string]string `toml:"env"`
	URL     string            `toml:"url"`
}

// Duration is a time.Duration written as "10s" in TOML.
type Duration struct{ time.Duration }

// UnmarshalText parses a Go duration.
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	if err != nil {
		return fmt.Errorf("want a duration such as \"30s\", got %q", string(b))
	}
	d.Duration = v
	return nil
}

// Default is the config used when the workspace has no skillet.toml.
func Default() *Config {
	return &Config{Session: event.DefaultSettings()}
}

// Load reads and checks a skillet.toml. Every problem is reported at
// once, each naming its key.
func Load(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read config %s: %w", path, err)
	}
	return Parse(data, path)
}

// Parse parses skillet.toml text; path names it in messages and is the
// base for relative paths.
func Parse(data []byte, path string) (*Config, error) {
	cfg := Default()
	md, err := toml.Decode(string(data), cfg)
	if err != nil {
		return nil, fmt.Errorf("config %s: %w", path, err)
	}
	cfg.Path = path
	var errs []error
	if und := md.Undecoded(); len(und) > 0 {
		keys := make([]string, 0, len(und))
		for _, k := range und {
			keys = append(keys, k.String())
		}
		if len(keys) > 0 {
			errs = append(errs, fmt.Errorf("unknown keys: %s (known settings: %s)", strings.Join(keys, ", "), strings.Join(event.SettingKeys(), ", ")))
		}
	}
	if err := cfg.check(); err != nil {
		errs = append(errs, err)
	}
	if err := cfg.checkAgent(); err != nil {
		errs = append(errs, err)
	}
	if cfg.Profile != "" {
		if _, err := profile.Get(cfg.Profile); err != nil {
			errs = append(errs, fmt.Errorf("profile: %w", err))
		}
	}
	if md.IsDefined("context_window") && cfg.ContextWindow <= 0 {
		errs = append(errs, fmt.Errorf("context_window: want a number of tokens above 0, got %d", cfg.ContextWindow))
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("config %s: %w", path, errors.Join(errs...))
	}
	dir := filepath.Dir(path)
	for i, d := range cfg.SkillsDirs {
		cfg.SkillsDirs[i] = resolvePath(dir, d)
	}
	for i, d := range cfg.ToolsDirs {
		cfg.ToolsDirs[i] = resolvePath(dir, d)
	}
	if cfg.Workspace != "" {
		cfg.Workspace = resolvePath(dir, cfg.Workspace)
	}
	if cfg.WorkspaceInPlace != "" {
		cfg.WorkspaceInPlace = resolvePath(dir, cfg.WorkspaceInPlace)
	}
	for name, srv := range cfg.MCP.Servers {
		// a server program given by path is relative to this file
		if strings.Contains(srv.Command, "/") {
			srv.Command = resolvePath(dir, srv.Command)
			cfg.MCP.Servers[name] = srv
		}
	}
	return cfg, nil
}

func resolvePath(base, p string) string {
	if strings.HasPrefix(p, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			p = filepath.Join(home, p[2:])
		}
	}
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(base, p)
}

// check validates values TOML cannot: settings ranges, approvals, refs.
func (c *Config) check() error {
	var errs []error
	for _, k := range event.SettingKeys() {
		v, _ := c.Session.Get(k)
		probe := event.DefaultSettings()
		if err := probe.Set(k, v); err != nil {
			errs = append(errs, fmt.Errorf("session.%s: %w", k, errors.Unwrap(err)))
		}
	}
	names := map[string]bool{}
	for i, t := range c.Agent.Tools {
		if t.Name == "" {
			errs = append(errs, fmt.Errorf("agent.tools[%d]: name is missing", i))
		}
		if names[t.Name] {
			errs = append(errs, fmt.Errorf("agent.tools[%d]: tool %q is listed twice", i, t.Name))
		}
		names[t.Name] = true
		if t.Version < 0 {
			errs = append(errs, fmt.Errorf("agent.tools[%d] (%s): version must be 1 or more", i, t.Name))
		}
		if t.Approval != "" && !validApproval(t.Approval) {
			errs = append(errs, fmt.Errorf("agent.tools[%d] (%s): approval %q: want never, ask or always-deny", i, t.Name, t.Approval))
		}
	}
	approvalKeys := make([]string, 0, len(c.Approval))
	for k := range c.Approval {
		approvalKeys = append(approvalKeys, k)
	}
	sort.Strings(approvalKeys)
	for _, k := range approvalKeys {
		if !validApproval(c.Approval[k]) {
			errs = append(errs, fmt.Errorf("approval.%s: %q: want never, ask or always-deny", k, c.Approval[k]))
		}
	}
	for i, r := range c.Skills {
		if r.Name == "" {
			errs = append(errs, fmt.Errorf("skills[%d]: name is missing", i))
		}
		switch v := r.Version.(type) {
		case nil, string, int64:
		default:
			errs = append(errs, fmt.Errorf("skills[%d] (%s): version must be a string or a whole number, got %v", i, r.Name, v))
		}
	}
	for name, s := range c.MCP.Servers {
		if (s.Command == "") == (s.URL == "") {
			errs = append(errs, fmt.Errorf("mcp.servers.%s: give exactly one of command or url", name))
		}
	}
	return errors.Join(errs...)
}

func validApproval(a string) bool {
	return a == rulebook.ApproveNever || a == rulebook.ApproveAsk || a == rulebook.ApproveDeny
}

// Refs converts the [[skills]] entries for skills.Select.
func (c *Config) Refs() []skills.Ref {
	refs := make([]skills.Ref, 0, len(c.Skills))
	for _, r := range c.Skills {
		refs = append(refs, skills.Ref{Name: r.Name, Version: versionString(r.Version), Preload: r.Preload})
	}
	return refs
}

func versionString(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case int64:
		return strconv.FormatInt(v, 10)
	}
	return ""
}
