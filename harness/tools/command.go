package tools

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"skillet/skills"
)

// stderrTail is how much of the end of stderr a failure message carries.
const stderrTail = 2 << 10

// waitDelay bounds how long a finished (or killed) command may keep its
// output pipes open through a process that left its group.
const waitDelay = time.Second

// trackPoll is how often a running command tool's tree is looked at, so that a
// process leaving it is still known, and one exiting on its own after it
// was re-parented here is reaped rather than left a zombie.
const trackPoll = 100 * time.Millisecond

// passedByDefault are the variables every command tool and stdio MCP
// server sees: what a program needs to find its tools, its home and its
// locale. Anything else (database URLs, cloud credentials, agent sockets,
// keys under any name) reaches a tool only when its tool file or server
// entry names it (DESIGN §3, env:).
var passedByDefault = []string{"PATH", "HOME", "USER", "LOGNAME", "LANG", "TERM", "TMPDIR", "TZ", "SHELL"}

// passedPrefixes extend passedByDefault to families of locale variables.
var passedPrefixes = []string{"LC_"}

// markerVar is set, to a value of each run's own, in the environment of
// every command tool run and stdio MCP server: descendants inherit it,
// which is how they are found once they have left the run's process group
// and its tree.
const markerVar = "SKILLET_RUN"

// neverPassed are variables no tool sees, named or not: the model's API key
// belongs to the harness.
var neverPassed = []string{"OPENAI_API_KEY"}

// runCommand runs a command tool: arguments as JSON on stdin, stdout as the
// result, in the skill's folder, with an allowlisted environment, a timeout and
// an output cap.
func (r *Runner) runCommand(ctx context.Context, call Call) Result {
	def := call.Def
	label := toolLabel(def)
	if len(def.Command) == 0 || def.Command[0] == "" {
		return errorResult("tool %s: no command to run", label)
	}
	env := r.commandEnv(def, call)
	prog, err := resolveProgram(def, call.Dir, envValue(env, "PATH"))
	if err != nil {
		return errorResult("tool %s: %v", label, err)
	}

	timeout := r.timeout(def)
	tctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	cmd := exec.CommandContext(tctx, prog, def.Command[1:]...)
	cmd.Dir = call.Dir
	if cmd.Dir == "" && def.File != "" {
		cmd.Dir = filepath.Dir(def.File)
	}
	cmd.Env = env
	// The arguments arrive through a pipe fed by os/exec, which ignores EPIPE:
	// a tool that never reads stdin neither hangs nor fails.
	cmd.Stdin = bytes.NewReader(argsOrEmpty(call.Args))
	maxOut := r.maxOutput(def)
	stdout := &headBuffer{max: maxOut}
	stderr := &tailBuffer{max: maxOut}
	cmd.Stdout = stdout
	cmd.Stderr = stderr
	setProcessGroup(cmd)
	tree := newProcTree(trackPoll)
	cmd.Env = append(cmd.Env, tree.env())
	tree.contained = contain(cmd)
	cmd.Cancel = func() error {
		tree.kill(true)
		return nil
	}
	cmd.WaitDelay = waitDelay

	if err := cmd.Start(); err != nil {
		return errorResult("tool %s: cannot start %s: %v", label, def.Command[0], unwrapExecError(err))
	}
	tree.started(cmd)
	waitErr := cmd.Wait()
	// Whatever the tool started goes with it, daemons included.
	tree.finish()

	out := stdout.String()
	res := Result{Content: out, Stderr: stderr.String()}
	if waitErr != nil && ctx.Err() != nil {
		res.IsError = true
		res.Content = fmt.Sprintf("tool %s: cancelled; its processes were stopped", label)
		return res
	}
	if waitErr != nil && errors.Is(tctx.Err(), context.DeadlineExceeded) {
		res.IsError = true
		res.Content = fmt.Sprintf("tool %s: timed out after %s; its processes were stopped", label, timeout)
		if strings.TrimSpace(out) != "" {
			res.Content += "\nstdout before the timeout:\n" + out
		}
		return res
	}

	var exitErr *exec.ExitError
	if errors.As(waitErr, &exitErr) {
		res.IsError = true
		res.Content = failureMessage(label, exitErr, tree.contained, stderr.Last(stderrTail), stdout.String())
		return res
	}
	if waitErr != nil && !errors.Is(waitErr, exec.ErrWaitDelay) {
		res.IsError = true
		res.Content = fmt.Sprintf("tool %s: %v", label, waitErr)
	}
	return res
}

// failureMessage says how a command failed, ending with what it printed.
// The init of a contained run's PID namespace is a shell, which reports a
// command ended by signal N as exit code 128+N.
func failureMessage(label string, exitErr *exec.ExitError, contained bool, errTail, out string) string {
	var b strings.Builder
	if code := exitErr.ExitCode(); code >= 0 {
		fmt.Fprintf(&b, "tool %s failed: exit code %d", label, code)
		if contained && code > 128 && code < 128+65 {
			fmt.Fprintf(&b, " (signal: %v)", syscall.Signal(code-128))
		}
	} else {
		fmt.Fprintf(&b, "tool %s failed: %v", label, exitErr)
	}
	if errTail = strings.TrimRight(errTail, "\n"); errTail != "" {
		b.WriteString("\nstderr (end):\n")
		b.WriteString(errTail)
	}
	if out = strings.TrimRight(out, "\n"); out != "" {
		b.WriteString("\nstdout:\n")
		b.WriteString(out)
	}
	return b.String()
}

func unwrapExecError(err error) error {
	var ee *exec.Error
	if errors.As(err, &ee) {
		return ee.Err
	}
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// resolveProgram finds the program of a command tool: a path with a slash is
// relative to the tool file's folder; a bare name is looked up in the PATH
// the tool will run with.
func resolveProgram(def *skills.ToolDef, dir, pathEnv string) (string, error) {
	prog := def.Command[0]
	if filepath.IsAbs(prog) {
		return prog, checkExecutable(prog)
	}
	if strings.ContainsRune(prog, '/') {
		base := dir
		if def.File != "" {
			base = filepath.Dir(def.File)
		}
		p := filepath.Join(base, prog)
		return p, checkExecutable(p)
	}
	return lookPath(prog, pathEnv)
}

// lookPath finds a bare program name in the given PATH value rather than
// the harness's own, since a tool runs with the environment it is given.
func lookPath(prog, pathEnv string) (string, error) {
	for _, d := range filepath.SplitList(pathEnv) {
		if d == "" || !filepath.IsAbs(d) {
			// A relative PATH entry would resolve against the skill's
			// folder: never run a program by accident from there.
			continue
		}
		p := filepath.Join(d, prog)
		if checkExecutable(p) == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("program %q not found in PATH", prog)
}

func checkExecutable(p string) error {
	fi, err := os.Stat(p)
	if err != nil {
		return fmt.Errorf("program %s: %w", p, unwrapExecError(err))
	}
	if fi.IsDir() {
		return fmt.Errorf("program %s is a folder", p)
	}
	if fi.Mode().Perm()&0o111 == 0 {
		return fmt.Errorf("program %s is not executable (chmod +x it)", p)
	}
	return nil
}

// commandEnv is the environment of a command tool: the default variables
// of the base environment and those its tool file names, plus where its
// state and store live and which tool it is.
func (r *Runner) commandEnv(def *skills.ToolDef, call Call) []string {
	env := scrubEnv(r.baseEnv(), def.Env, "SKILLET_STATE", "SKILLET_STORE", "SKILLET_TOOL", markerVar)
	if call.StateFile != "" {
		env = append(env, "SKILLET_STATE="+call.StateFile)
	}
	if call.StoreFile != "" {
		env = append(env, "SKILLET_STORE="+call.StoreFile)
	}
	return append(env, "SKILLET_TOOL="+def.Key())
}

func (r *Runner) baseEnv() []string {
	if r.opts.Env != nil {
		return r.opts.Env
	}
	return os.Environ()
}

// scrubEnv returns the variables of base a tool may see: the default set
// and those named (except the ones never passed), without the names in
// drop.
func scrubEnv(base, named []string, drop ...string) []string {
	out := make([]string, 0, len(passedByDefault)+len(named)+3)
	for _, kv := range base {
		name, _, ok := strings.Cut(kv, "=")
		if !ok || name == "" || slices.Contains(drop, name) || slices.Contains(neverPassed, name) {
			continue
		}
		if passedToTools(name) || slices.Contains(named, name) {
			out = append(out, kv)
		}
	}
	return out
}

// AllowedEnv returns the variables of base every command may see: the
// default set, never the API key. Agent shell tools get these alone.
func AllowedEnv(base []string) []string {
	return scrubEnv(base, nil, "SKILLET_STATE", "SKILLET_STORE", "SKILLET_TOOL", markerVar)
}

// passedToTools reports whether a variable reaches tools without being
// named.
func passedToTools(name string) bool {
	if slices.Contains(passedByDefault, name) {
		return true
	}
	for _, p := range passedPrefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// envValue returns the last value of name in env (the one a program sees).
func envValue(env []string, name string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(env[i], name+"="); ok {
			return v
		}
	}
	return ""
}
