package config

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"skillet/harness/agenttools"
	"skillet/harness/rulebook"
)

// Sandbox is the [sandbox] table: how agent shell commands are
// confined and bounded. Zero values take the sandbox's defaults.
type Sandbox struct {
	// Network lets commands reach the network (off by default).
	Network bool `toml:"network"`
	// Disabled runs commands unconfined (--no-sandbox).
	Disabled  bool     `toml:"disabled"`
	CPU       Duration `toml:"cpu"`
	Wall      Duration `toml:"wall"`
	Memory    int64    `toml:"memory"`
	Processes int      `toml:"processes"`
	FileSize  int64    `toml:"file_size"`
	Output    int      `toml:"output"`
}

// Permission is one [[permissions]] entry: calls of agent tools that
// match Allow run without asking, those that match Deny are refused. Each
// is a rule in Claude Code's syntax: `Bash(git diff:*)`, `Read`,
// `Edit(src/**)`.
type Permission = rulebook.Permission

// checkAgent validates the workspace, [sandbox] and [[permissions]] keys.
func (c *Config) checkAgent() error {
	var errs []error
	if c.Workspace != "" && c.WorkspaceInPlace != "" {
		errs = append(errs, errors.New("workspace and workspace_in_place: give one of them"))
	}
	for name, v := range map[string]time.Duration{"cpu": c.Sandbox.CPU.Duration, "wall": c.Sandbox.Wall.Duration} {
		if v < 0 {
			errs = append(errs, fmt.Errorf("sandbox.%s: want a duration above 0, got %s", name, v))
		}
	}
	for name, v := range map[string]int64{"memory": c.Sandbox.Memory, "processes": int64(c.Sandbox.Processes), "file_size": c.Sandbox.FileSize, "output": int64(c.Sandbox.Output)} {
		if v < 0 {
			errs = append(errs, fmt.Errorf("sandbox.%s: want a number above 0, got %d", name, v))
		}
	}
	for i, p := range c.Permissions {
		if (strings.TrimSpace(p.Allow) == "") == (strings.TrimSpace(p.Deny) == "") {
			errs = append(errs, fmt.Errorf("permissions[%d]: give exactly one of allow or deny", i))
			continue
		}
		if _, err := agenttools.ParseAllowed(p.Allow + p.Deny); err != nil {
			errs = append(errs, fmt.Errorf("permissions[%d]: %w", i, err))
		}
	}
	return errors.Join(errs...)
}
