package agenttools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// testResolver confines paths to a root folder and read-only extra
// folders, resolving symlinks (of the longest existing prefix, so a path
// that does not exist yet is still checked).
type testResolver struct {
	root     string
	readOnly []string
}

func (r testResolver) Root() string { return r.root }

func (r testResolver) Resolve(p string, write bool) (string, error) {
	if strings.ContainsRune(p, 0) {
		return "", errors.New("path contains NUL")
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(r.root, p)
	}
	real, err := evalExisting(filepath.Clean(p))
	if err != nil {
		return "", err
	}
	if within(r.root, real) {
		return real, nil
	}
	if !write {
		for _, d := range r.readOnly {
			if within(d, real) {
				return real, nil
			}
		}
	}
	return "", fmt.Errorf("%s is outside the workspace", p)
}

func evalExisting(p string) (string, error) {
	rest := ""
	cur := p
	for {
		real, err := filepath.EvalSymlinks(cur)
		if err == nil {
			return filepath.Join(real, rest), nil
		}
		if !errors.Is(err, os.ErrNotExist) {
			return "", err
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return p, nil
		}
		rest = filepath.Join(filepath.Base(cur), rest)
		cur = parent
	}
}

// execShell runs commands with /bin/sh, unconfined (tests only), with
// the wall time limit a sandbox would impose.
type execShell struct{ limit time.Duration }

func (s execShell) Run(ctx context.Context, req ShellRequest) (ShellResult, error) {
	limit := s.limit
	if req.Timeout > 0 && (limit == 0 || req.Timeout < limit) {
		limit = req.Timeout
	}
	if limit == 0 {
		limit = 30 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, "/bin/sh", "-c", req.Command)
	cmd.Dir = req.Dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	// One writer for both streams: os/exec then uses one pipe, so the
	// interleaving is the command's own and the tests are deterministic
	// (the streams are not told apart; Stdout carries both).
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	start := time.Now()
	err := cmd.Run()
	res := ShellResult{Stdout: out.String(), Output: out.String(),
		Duration: time.Since(start), OutputBytes: int64(out.Len())}
	var ee *exec.ExitError
	switch {
	case ctx.Err() == context.DeadlineExceeded:
		res.ExitCode, res.Limit, res.Signal = -1, "wall time", "KILL"
	case errors.As(err, &ee):
		res.ExitCode = ee.ExitCode()
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			res.Signal = ws.Signal().String()
		}
	case err != nil:
		return res, err
	}
	return res, nil
}

// workspace is a temp workspace with files, and a skill folder beside it.
type workspace struct {
	t        *testing.T
	root     string
	skillDir string
	env      Env
}

func newWorkspace(t *testing.T, files map[string]string) *workspace {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(base, "ws")
	skill := filepath.Join(base, "skills", "demo")
	for _, d := range []string{root, filepath.Join(skill, "scripts")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(skill, "SKILL.md"), []byte("---\nname: demo\n---\nRun scripts/hi.sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	w := &workspace{t: t, root: root, skillDir: skill}
	for p, c := range files {
		w.write(p, c)
	}
	w.env = Env{Files: testResolver{root: root, readOnly: []string{skill}}, Shell: execShell{limit: 20 * time.Second}, SkillDirs: []string{skill}}
	return w
}

func (w *workspace) write(p, content string) {
	w.t.Helper()
	abs := filepath.Join(w.root, p)
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		w.t.Fatal(err)
	}
	if err := os.WriteFile(abs, []byte(content), 0o644); err != nil {
		w.t.Fatal(err)
	}
}

func (w *workspace) read(p string) string {
	w.t.Helper()
	b, err := os.ReadFile(filepath.Join(w.root, p))
	if err != nil {
		w.t.Fatalf("read %s: %v", p, err)
	}
	return string(b)
}

func (w *workspace) exists(p string) bool {
	_, err := os.Stat(filepath.Join(w.root, p))
	return err == nil
}

// call runs a profile's tool by name with arguments given as a map.
func (w *workspace) call(profile, name string, a map[string]any) Result {
	w.t.Helper()
	def := mustDef(w.t, profile, name)
	raw, err := json.Marshal(a)
	if err != nil {
		w.t.Fatal(err)
	}
	return Run(context.Background(), w.env, def, raw)
}

func mustDef(t testing.TB, profile, name string) Def {
	t.Helper()
	defs, err := For(profile)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range defs {
		if d.Name == name {
			return d
		}
	}
	t.Fatalf("profile %s has no tool %s", profile, name)
	return Def{}
}

func wantContains(t *testing.T, got Result, wantErr bool, subs ...string) {
	t.Helper()
	if got.IsError != wantErr {
		t.Errorf("IsError = %v, want %v; content:\n%s", got.IsError, wantErr, got.Content)
	}
	for _, s := range subs {
		if !strings.Contains(got.Content, s) {
			t.Errorf("content lacks %q:\n%s", s, got.Content)
		}
	}
}
