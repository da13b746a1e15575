package sandbox

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// newSandbox starts the real sandbox, or skips saying why; with
// SKILLET_REQUIRE_SANDBOX=1 (set in CI) it fails instead.
func newSandbox(t testing.TB) *Sandbox {
	t.Helper()
	s, err := New(Options{})
	if err != nil {
		if os.Getenv("SKILLET_REQUIRE_SANDBOX") == "1" {
			t.Fatalf("SKILLET_REQUIRE_SANDBOX=1 but no sandbox: %v", err)
		}
		t.Skipf("no sandbox on this machine: %v", err)
	}
	return s
}

// env is the allowlisted environment the tests pass.
func env(extra ...string) []string {
	return append([]string{"PATH=" + DefaultPath, "LANG=C.UTF-8"}, extra...)
}

func run(t *testing.T, s *Sandbox, spec Spec) Result {
	t.Helper()
	if spec.Workspace == "" {
		spec.Workspace = t.TempDir()
	}
	if spec.Env == nil {
		spec.Env = env()
	}
	res, err := s.Run(context.Background(), spec)
	if err != nil {
		t.Fatalf("Run(%q): %v", spec.Command, err)
	}
	return res
}

func describe(r Result) string {
	return fmt.Sprintf("exit %d signal %q limit %q in %s, %d bytes, output:\n%s", r.ExitCode, r.Signal, r.Limit, r.Duration, r.OutputBytes, r.Output)
}

func TestRunsCommandInWorkspace(t *testing.T) {
	s := newSandbox(t)
	ws := t.TempDir()
	if err := os.Mkdir(filepath.Join(ws, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	res := run(t, s, Spec{Command: `pwd; echo out; echo err >&2; echo made > here.txt; exit 3`, Workspace: ws, Dir: filepath.Join(ws, "sub")})
	if res.ExitCode != 3 || res.Signal != "" || res.Limit != "" {
		t.Fatalf("want exit 3, got %s", describe(res))
	}
	if got := string(res.Stdout); got != filepath.Join(ws, "sub")+"\nout\n" {
		t.Errorf("stdout %q", got)
	}
	if string(res.Stderr) != "err\n" {
		t.Errorf("stderr %q", res.Stderr)
	}
	if b, err := os.ReadFile(filepath.Join(ws, "sub", "here.txt")); err != nil || string(b) != "made\n" {
		t.Errorf("file written in the workspace: %q, %v", b, err)
	}
	if !strings.Contains(s.Describe(), "bubblewrap") || !s.Confined() {
		t.Errorf("Describe %q, Confined %v", s.Describe(), s.Confined())
	}
}

func TestEnvironmentIsExactlyGiven(t *testing.T) {
	s := newSandbox(t)
	t.Setenv("SKILLET_SANDBOX_SECRET", "sk-test-do-not-leak")
	given := env("HOME=/home/me", "ONLY=this")
	res := run(t, s, Spec{Command: `env; echo ---; tr '\0' '\n' < /proc/1/environ; echo ---; grep -rl sk-test-do-not-leak /proc/[0-9]*/environ; echo done`, Env: given})
	parts := strings.Split(string(res.Stdout), "---\n")
	if len(parts) != 3 {
		t.Fatalf("output: %s", describe(res))
	}
	allowed := map[string]bool{}
	for _, kv := range given {
		allowed[kv] = true
	}
	for _, line := range strings.Split(strings.TrimSpace(parts[0]), "\n") {
		k, _, _ := strings.Cut(line, "=")
		// bash adds PWD, SHLVL and _ itself.
		if !allowed[line] && k != "PWD" && k != "SHLVL" && k != "_" {
			t.Errorf("command's environment has %q, not given", line)
		}
	}
	// /proc/1 is bwrap's init in the sandbox: it holds the given env only.
	for _, line := range strings.Split(strings.TrimSpace(parts[1]), "\n") {
		if line != "" && !allowed[line] {
			t.Errorf("/proc/1/environ has %q, not given", line)
		}
	}
	if !strings.Contains(parts[1], "ONLY=this") {
		t.Logf("/proc/1/environ is not readable inside: %q", parts[1])
	}
	if strings.Contains(string(res.Output), "sk-test-do-not-leak") || strings.TrimSpace(parts[2]) != "done" {
		t.Errorf("the parent's secret is visible: %s", describe(res))
	}
}

func TestParentProcessUnreachable(t *testing.T) {
	s := newSandbox(t)
	pid := strconv.Itoa(os.Getpid())
	res := run(t, s, Spec{Command: `echo fds $(ls /proc/self/fd); cat /proc/` + pid + `/environ && echo READABLE; cat /proc/` + strconv.Itoa(os.Getppid()) + `/cmdline && echo READABLE; ls /proc | grep -c '^[0-9]'`})
	// stdin, stdout, stderr and the folder ls is reading: no pipe to Skillet.
	if !strings.HasPrefix(string(res.Stdout), "fds 0 1 2 3\n") {
		t.Errorf("open files inherited: %s", describe(res))
	}
	if strings.Contains(string(res.Stdout), "READABLE") {
		t.Fatalf("Skillet's process is visible from the sandbox: %s", describe(res))
	}
	// Only bwrap's init, bash and the pipeline are in the PID namespace.
	if n, _ := strconv.Atoi(strings.TrimSpace(lastLine(res.Stdout))); n == 0 || n > 5 {
		t.Errorf("processes visible: %s", describe(res))
	}
}

func lastLine(b []byte) string {
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	return lines[len(lines)-1]
}

func TestHomeAndOtherFoldersInvisible(t *testing.T) {
	s := newSandbox(t)
	realHome, err := os.UserHomeDir()
	if err != nil {
		t.Skip("no home folder")
	}
	secret, err := os.CreateTemp(realHome, ".skillet-sandbox-test-*")
	if err != nil {
		t.Skipf("cannot create a file in the real home %s: %v", realHome, err)
	}
	secret.WriteString("home secret")
	secret.Close()
	t.Cleanup(func() { os.Remove(secret.Name()) })

	parent := t.TempDir()
	ws := filepath.Join(parent, "ws")
	sibling := filepath.Join(parent, "journal")
	for _, d := range []string{ws, sibling} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(sibling, "session.jsonl"), []byte("journal secret"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := fmt.Sprintf(`ln -s "$(dirname %[2]q)" escape && cat escape/session.jsonl; cat %[1]q; cat %[2]q; ls -A %[3]q; echo "[$(ls -A %[4]q)]"; ls -A %[5]q; echo "home=$HOME"; touch "$HOME/.gitconfig" && echo home-writable; ls /work /root /var/lib 2>&1 | head -3`,
		secret.Name(), filepath.Join(sibling, "session.jsonl"), sibling, parent, realHome)
	res := run(t, s, Spec{Command: cmd, Workspace: ws})
	out := string(res.Output)
	// Contents anywhere, names in a listing (stdout; errors name the paths).
	for _, leak := range []string{"home secret", "journal secret", "\nsession.jsonl", "\n" + filepath.Base(secret.Name())} {
		if strings.Contains(out, leak) || strings.Contains("\n"+string(res.Stdout), leak) {
			t.Errorf("%q is visible in the sandbox: %s", leak, describe(res))
		}
	}
	if !strings.Contains(out, "[ws]") {
		t.Errorf("the workspace's parent should show only the workspace: %s", out)
	}
	if !strings.Contains(out, "home="+DefaultHome) || !strings.Contains(out, "home-writable") {
		t.Errorf("private home: %s", out)
	}

	// HOME given as the real home: a private empty one at that path.
	res = run(t, s, Spec{Command: `echo "[$(ls -A "$HOME")]"; cat ` + secret.Name() + `; echo x > "$HOME/f" && echo ok`, Workspace: ws, Env: env("HOME=" + realHome)})
	if !strings.HasPrefix(string(res.Stdout), "[]\n") || !strings.Contains(string(res.Stdout), "ok") || strings.Contains(string(res.Output), "home secret") {
		t.Errorf("HOME=%s should be private and empty: %s", realHome, describe(res))
	}
	if _, err := os.Stat(filepath.Join(realHome, "f")); err == nil {
		os.Remove(filepath.Join(realHome, "f"))
		t.Errorf("a write to the private home reached the real one")
	}
}

func TestWritesOutsideWorkspaceFail(t *testing.T) {
	s := newSandbox(t)
	parent := t.TempDir()
	ws, ro, other := filepath.Join(parent, "ws"), filepath.Join(parent, "skill"), filepath.Join(parent, "other")
	for _, d := range []string{ws, ro, other} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(ro, "SKILL.md"), []byte("skill text"), 0o644); err != nil {
		t.Fatal(err)
	}
	targets := []string{"/x", "/usr/x", "/etc/passwd", "/etc/x", "/opt/x", filepath.Join(ro, "x"), filepath.Join(ro, "SKILL.md"), filepath.Join(other, "x")}
	var cmd strings.Builder
	cmd.WriteString("cat " + filepath.Join(ro, "SKILL.md") + "; echo; ")
	for _, p := range targets {
		fmt.Fprintf(&cmd, "echo w >> %q && echo WROTE %s; ", p, p)
	}
	cmd.WriteString("echo w > ok.txt && echo WORKSPACE-OK")
	res := run(t, s, Spec{Command: cmd.String(), Workspace: ws, ReadOnly: []string{ro}})
	out := string(res.Stdout)
	if strings.Contains(out, "WROTE") {
		t.Errorf("a write outside the workspace succeeded: %s", describe(res))
	}
	if !strings.Contains(out, "skill text") || !strings.Contains(out, "WORKSPACE-OK") {
		t.Errorf("read-only skill folder readable and workspace writable: %s", describe(res))
	}
	if b, _ := os.ReadFile(filepath.Join(ro, "SKILL.md")); string(b) != "skill text" {
		t.Errorf("the read-only folder changed: %q", b)
	}
	if _, err := os.Stat(filepath.Join(other, "x")); err == nil {
		t.Errorf("a file appeared outside the workspace")
	}
}

func TestEtcSecretsMasked(t *testing.T) {
	s := newSandbox(t)
	if _, err := os.Stat("/etc/shadow"); err != nil {
		t.Skip("no /etc/shadow here")
	}
	res := run(t, s, Spec{Command: `cat /etc/shadow | wc -c; head -1 /etc/passwd`})
	if !strings.HasPrefix(string(res.Stdout), "0\n") || !strings.Contains(string(res.Stdout), "root:") {
		t.Errorf("/etc/shadow should read empty, /etc/passwd as is: %s", describe(res))
	}
}

func TestNetworkOffAndOn(t *testing.T) {
	s := newSandbox(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan struct{}, 4)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Write([]byte("hello from the host\n"))
			c.Close()
			accepted <- struct{}{}
		}
	}()
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	cmd := `exec 3<>/dev/tcp/127.0.0.1/` + port + ` && head -1 <&3 && echo CONNECTED`
	res := run(t, s, Spec{Command: cmd, Limits: Limits{Wall: 10 * time.Second}})
	if strings.Contains(string(res.Stdout), "CONNECTED") || res.ExitCode == 0 {
		t.Fatalf("loopback reachable with the network off: %s", describe(res))
	}
	select {
	case <-accepted:
		t.Fatal("the host listener accepted a connection from the sandbox")
	default:
	}
	res = run(t, s, Spec{Command: cmd, Network: true, Limits: Limits{Wall: 10 * time.Second}})
	if !strings.Contains(string(res.Stdout), "hello from the host") {
		t.Fatalf("Network=true should reach the host's loopback: %s", describe(res))
	}
}

func TestForkBombBounded(t *testing.T) {
	s := newSandbox(t)
	if strings.HasPrefix(s.processMechanism(), "not limited") {
		if os.Getenv("SKILLET_REQUIRE_SANDBOX") == "1" {
			t.Fatalf("processes cannot be limited here: %s", s.Describe())
		}
		t.Skipf("processes cannot be limited here: %s", s.Describe())
	}
	// Count how many processes the limit lets exist at once.
	// Python forks once per try; bash would retry a refused fork for seconds.
	res := run(t, s, Spec{Command: `exec python3 -c '
import os, time
n = 0
try:
    while n < 1000:
        if os.fork() == 0:
            time.sleep(30)
            os._exit(0)
        n += 1
except OSError as e:
    print("refused:", e.strerror)
print(n)
'`, Limits: Limits{Processes: 64, Wall: 30 * time.Second}})
	n, err := strconv.Atoi(lastLine(res.Stdout))
	if err != nil || n > 64 || n < 10 || !strings.Contains(string(res.Stdout), "refused") {
		t.Errorf("with Processes 64, %d processes existed: %s", n, describe(res))
	}
	t.Logf("Processes 64: %d forks succeeded before one was refused", n)
	if res.Limit != "processes 64" {
		t.Errorf("Limit %q, want processes 64", res.Limit)
	}
	// The classic fork bomb, kept going by a waiting shell.
	start := time.Now()
	res = run(t, s, Spec{Command: `:(){ :|:& };: ; sleep 3; echo survived`, Limits: Limits{Wall: 20 * time.Second}})
	if res.Limit == "" || time.Since(start) > 15*time.Second {
		t.Errorf("fork bomb: %s", describe(res))
	}
	t.Logf("fork bomb: limit %q, exit %d, %s", res.Limit, res.ExitCode, time.Since(start))
	// This process and the machine go on.
	if out, err := exec.Command("/bin/true").CombinedOutput(); err != nil {
		t.Fatalf("cannot fork after the bomb: %v %s", err, out)
	}
	assertNoProcess(t, "time.sleep(30)")
}

// assertNoProcess fails if any process's command line contains marker.
func assertNoProcess(t *testing.T, marker string) {
	t.Helper()
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue
		}
		if strings.Contains(string(bytes.ReplaceAll(b, []byte{0}, []byte{' '})), marker) {
			t.Errorf("process %s (%q) still running after Run returned", e.Name(), marker)
		}
	}
}

func TestOutputFloodBounded(t *testing.T) {
	s := newSandbox(t)
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	res := run(t, s, Spec{Command: `yes 'spam spam spam' | head -c 1G`})
	runtime.ReadMemStats(&after)
	if res.Limit != "output 64 MiB" || !res.Truncated || res.Signal != "SIGKILL" {
		t.Fatalf("1 GB of output: %s", describe(res)[:200])
	}
	if res.OutputBytes < 64<<20 || res.OutputBytes > 1<<30 {
		t.Errorf("OutputBytes %d", res.OutputBytes)
	}
	if len(res.Stdout) != 1<<20 || len(res.Output) != 1<<20 || !bytes.HasPrefix(res.Stdout, []byte("spam spam spam\n")) {
		t.Errorf("kept %d stdout, %d output bytes", len(res.Stdout), len(res.Output))
	}
	if grown := int64(after.HeapInuse) - int64(before.HeapInuse); grown > 32<<20 {
		t.Errorf("the Go heap grew by %d MiB reading 1 GB", grown>>20)
	}
	t.Logf("killed after %d MiB in %s", res.OutputBytes>>20, time.Since(start))

	// Under the kill threshold: all read, counted, the excess discarded.
	res = run(t, s, Spec{Command: `head -c 100000 /dev/zero; echo tail >&2`, Limits: Limits{Output: 4096}})
	if res.Limit != "" || res.ExitCode != 0 || res.OutputBytes != 100005 || !res.Truncated || len(res.Stdout) != 4096 || string(res.Stderr) != "tail\n" || len(res.Output) != 4096 {
		t.Errorf("capped output: %d/%d/%d kept of %d, %s", len(res.Stdout), len(res.Stderr), len(res.Output), res.OutputBytes, res.Limit)
	}
}

func TestWallLimitAndDaemonsKilled(t *testing.T) {
	s := newSandbox(t)
	start := time.Now()
	res := run(t, s, Spec{Command: `sleep infinity`, Limits: Limits{Wall: time.Second}})
	if res.Limit != "wall time 1s" || res.ExitCode != -1 || res.Signal != "SIGKILL" || time.Since(start) > 5*time.Second {
		t.Fatalf("sleep infinity: %s", describe(res))
	}
	marker := fmt.Sprintf("%d.%d", 1000+os.Getpid()%1000, time.Now().UnixNano()%1000000)
	res = run(t, s, Spec{Command: `setsid sleep ` + marker + ` & nohup sleep ` + marker + ` >/dev/null 2>&1 & (sleep ` + marker + ` &) ; echo started`})
	if res.ExitCode != 0 || string(res.Stdout) != "started\n" {
		t.Fatalf("daemon: %s", describe(res))
	}
	assertNoProcess(t, "sleep "+marker)
}

func TestCancelKillsPromptly(t *testing.T) {
	s := newSandbox(t)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	start := time.Now()
	res, err := s.Run(ctx, Spec{Command: `sleep 100`, Workspace: t.TempDir(), Env: env()})
	if err != nil {
		t.Fatal(err)
	}
	if res.Limit != "cancelled" || res.Signal != "SIGKILL" || time.Since(start) > 2*time.Second {
		t.Fatalf("cancel: %s", describe(res))
	}
	if _, err := s.Run(ctx, Spec{Command: "true", Workspace: t.TempDir()}); err == nil {
		t.Error("Run with a cancelled context should not start")
	}
}

func TestOutputBytesUntouched(t *testing.T) {
	s := newSandbox(t)
	res := run(t, s, Spec{Command: `printf '\xff\xfe\x80ok\x00\x1b[31m'`})
	if want := []byte("\xff\xfe\x80ok\x00\x1b[31m"); !bytes.Equal(res.Stdout, want) || !bytes.Equal(res.Output, want) {
		t.Errorf("got %q", res.Stdout)
	}
}

func TestStdin(t *testing.T) {
	s := newSandbox(t)
	start := time.Now()
	res := run(t, s, Spec{Command: `cat; read -r x; echo "read=$? [$x]"`, Limits: Limits{Wall: 10 * time.Second}})
	if string(res.Stdout) != "read=1 []\n" || time.Since(start) > 5*time.Second {
		t.Errorf("stdin should be /dev/null: %s", describe(res))
	}
	res = run(t, s, Spec{Command: `tr a-z A-Z`, Stdin: strings.NewReader("hello")})
	if string(res.Stdout) != "HELLO" {
		t.Errorf("stdin given: %s", describe(res))
	}
}

func TestPerProcessLimits(t *testing.T) {
	s := newSandbox(t)
	res := run(t, s, Spec{Command: `while :; do :; done`, Limits: Limits{CPU: time.Second, Wall: 20 * time.Second}})
	if res.Signal != "SIGXCPU" || res.Limit != "CPU time 1s" {
		t.Errorf("CPU: %s", describe(res))
	}
	res = run(t, s, Spec{Command: `head -c 3000000 /dev/zero > big`, Limits: Limits{FileSize: 1 << 20}})
	if res.Signal != "SIGXFSZ" || res.Limit != "file size 1 MiB" {
		t.Errorf("file size: %s", describe(res))
	}
	res = run(t, s, Spec{Command: `/usr/bin/python3 -c 'x = bytearray(512 << 20)'`, Limits: Limits{Memory: 256 << 20}})
	if res.ExitCode == 0 || res.Limit != "memory 256 MiB" {
		t.Errorf("memory: %s", describe(res))
	}
	// node reserves far more address space than it uses; the default
	// memory limit must leave it running.
	if _, err := os.Stat("/usr/bin/node"); err == nil {
		res = run(t, s, Spec{Command: `node -e 'console.log(new Array(1e6).fill(7).length)'`})
		if strings.TrimSpace(string(res.Stdout)) != "1000000" {
			t.Errorf("node under the default limits: %s", describe(res))
		}
	}
}

func TestRealSkillScript(t *testing.T) {
	s := newSandbox(t)
	root := "/work/shared/real-skills-runnable"
	skill := filepath.Join(root, "skills", "env-secrets-manager")
	fixture := filepath.Join(root, "tasks", "env-secrets-manager", "fixtures")
	if _, err := os.Stat(filepath.Join(skill, "scripts", "env_auditor.py")); err != nil {
		t.Skipf("real skills not here: %v", err)
	}
	ws := t.TempDir()
	if out, err := exec.Command("sh", "-c", `cp -R "$1"/. "$2" && chmod -R u+w "$2"`, "sh", fixture, ws).CombinedOutput(); err != nil {
		t.Fatalf("copy fixture: %v %s", err, out)
	}
	res := run(t, s, Spec{
		Command:   `python3 "$SKILL_DIR/scripts/env_auditor.py" billing-api`,
		Workspace: ws, ReadOnly: []string{skill},
		Env: env("SKILL_DIR="+skill, "PYTHONDONTWRITEBYTECODE=1"),
	})
	for _, want := range []string{"Total findings: 4", "[CRITICAL] app/settings.py:3 (aws_access_key_id)", "[HIGH] config.yaml:5 (generic_secret_assignment)"} {
		if !strings.Contains(string(res.Stdout), want) {
			t.Errorf("skill output lacks %q: %s", want, describe(res))
		}
	}
	if _, err := os.Stat(filepath.Join(skill, "scripts", "__pycache__")); err == nil {
		t.Errorf("the read-only skill folder got a __pycache__")
	}
}

func TestBadInput(t *testing.T) {
	s := newSandbox(t)
	ws := t.TempDir()
	cases := []struct {
		name string
		spec Spec
		want string
	}{
		{"empty command", Spec{Command: " ", Workspace: ws}, "empty command"},
		{"NUL", Spec{Command: "echo \x00", Workspace: ws}, "NUL"},
		{"no workspace", Spec{Command: "true"}, "no workspace"},
		{"missing workspace", Spec{Command: "true", Workspace: filepath.Join(ws, "nope")}, "nope"},
		{"root workspace", Spec{Command: "true", Workspace: "/"}, "root folder"},
		{"dir outside", Spec{Command: "true", Workspace: ws, Dir: os.TempDir()}, "not inside the workspace"},
		{"dir escapes by ..", Spec{Command: "true", Workspace: ws, Dir: ".."}, "not inside the workspace"},
		{"missing read-only", Spec{Command: "true", Workspace: ws, ReadOnly: []string{"/no/such/skill"}}, "/no/such/skill"},
		{"env entry", Spec{Command: "true", Workspace: ws, Env: []string{"JUSTANAME"}}, "JUSTANAME"},
		{"home hides system", Spec{Command: "true", Workspace: ws, Env: []string{"HOME=/usr"}}, "system folder /usr"},
	}
	for _, c := range cases {
		_, err := s.Run(context.Background(), c.spec)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want it to mention %q", c.name, err, c.want)
		}
	}
}

func TestNewExplainsWhyNot(t *testing.T) {
	_, err := New(Options{Bwrap: "/no/such/bwrap"})
	if err == nil || !ErrNoSandbox(err) || !strings.Contains(err.Error(), "--no-sandbox") || !strings.Contains(err.Error(), "apt-get install bubblewrap") {
		t.Fatalf("error %v", err)
	}
	// A bwrap that cannot create namespaces: the probe's error says so.
	fake := filepath.Join(t.TempDir(), "bwrap")
	if err := os.WriteFile(fake, []byte("#!/bin/sh\necho 'bwrap: setting up uid map: Permission denied' >&2\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	_, err = New(Options{Bwrap: fake})
	if err == nil || !ErrNoSandbox(err) || !strings.Contains(err.Error(), "uid map: Permission denied") || !strings.Contains(err.Error(), "--no-sandbox") {
		t.Fatalf("error %v", err)
	}
}

func TestUnconfined(t *testing.T) {
	s := Unconfined(Options{})
	if s.Confined() || !strings.Contains(s.Describe(), "no sandbox") {
		t.Errorf("Describe %q", s.Describe())
	}
	ws := t.TempDir()
	t.Setenv("SKILLET_SANDBOX_SECRET", "sk-test-do-not-leak")
	res := run(t, s, Spec{Command: `pwd; echo fds $(ls /proc/self/fd); env`, Workspace: ws, Env: env("ONLY=this")})
	out := string(res.Stdout)
	if !strings.HasPrefix(out, ws+"\nfds 0 1 2 3\n") || !strings.Contains(out, "ONLY=this") || strings.Contains(out, "sk-test-do-not-leak") {
		t.Errorf("unconfined: %s", describe(res))
	}
	res = run(t, s, Spec{Command: `sleep infinity`, Workspace: ws, Limits: Limits{Wall: 500 * time.Millisecond}})
	if res.Limit != "wall time 500ms" {
		t.Errorf("wall: %s", describe(res))
	}
	res = run(t, s, Spec{Command: `head -c 3000000 /dev/zero > big`, Workspace: ws, Limits: Limits{FileSize: 1 << 20}})
	if res.Limit != "file size 1 MiB" {
		t.Errorf("file size: %s", describe(res))
	}
	if s.cg == nil {
		t.Logf("no writable pids cgroup: a daemon that leaves the process group survives unconfined")
		return
	}
	marker := fmt.Sprintf("%d.%d", 2000+os.Getpid()%1000, time.Now().UnixNano()%1000000)
	res = run(t, s, Spec{Command: `setsid sleep ` + marker + ` & echo started`, Workspace: ws})
	if string(res.Stdout) != "started\n" {
		t.Fatalf("daemon: %s", describe(res))
	}
	assertNoProcess(t, "sleep "+marker)
	res = run(t, s, Spec{Command: `exec python3 -c '
import os, time
try:
    for i in range(100):
        if os.fork() == 0:
            time.sleep(30)
            os._exit(0)
except OSError:
    print("refused")
'`, Workspace: ws, Limits: Limits{Processes: 20}})
	if res.Limit != "processes 20" || string(res.Stdout) != "refused\n" {
		t.Errorf("processes: %s", describe(res))
	}
	assertNoProcess(t, "time.sleep(30)")
}

// BenchmarkOverhead runs `true` confined and unconfined in turn, so both
// see the same load, and reports the median and fastest of each: on a
// shared machine the median carries the load, the fastest what the
// sandbox itself costs.
func BenchmarkOverhead(b *testing.B) {
	confined := newSandbox(b)
	unconfined := Unconfined(Options{})
	spec := Spec{Command: "true", Workspace: b.TempDir(), Env: env()}
	var dc, du []time.Duration
	for b.Loop() {
		for _, s := range []*Sandbox{confined, unconfined} {
			start := time.Now()
			if res, err := s.Run(context.Background(), spec); err != nil || res.ExitCode != 0 {
				b.Fatal(err, res.ExitCode)
			}
			if s == confined {
				dc = append(dc, time.Since(start))
			} else {
				du = append(du, time.Since(start))
			}
		}
	}
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	for _, d := range [][]time.Duration{dc, du} {
		sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	}
	mc, mu := dc[len(dc)/2], du[len(du)/2]
	b.ReportMetric(ms(mc), "confined-p50-ms")
	b.ReportMetric(ms(mu), "unconfined-p50-ms")
	b.ReportMetric(ms(mc-mu), "overhead-p50-ms")
	b.ReportMetric(float64(mc)/float64(mu), "ratio-p50")
	b.ReportMetric(ms(dc[0]-du[0]), "overhead-min-ms")
}

// BenchmarkTrue measures what confinement adds to one command.
func BenchmarkTrue(b *testing.B) {
	ws := b.TempDir()
	spec := Spec{Command: "true", Workspace: ws, Env: env()}
	b.Run("unconfined", func(b *testing.B) {
		s := Unconfined(Options{})
		for b.Loop() {
			if res, err := s.Run(context.Background(), spec); err != nil || res.ExitCode != 0 {
				b.Fatal(err, res.ExitCode)
			}
		}
	})
	b.Run("confined-no-cgroup", func(b *testing.B) {
		newSandbox(b)
		s, err := New(Options{NoCgroup: true})
		if err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			if res, err := s.Run(context.Background(), spec); err != nil || res.ExitCode != 0 {
				b.Fatal(err, res.ExitCode)
			}
		}
	})
	b.Run("confined", func(b *testing.B) {
		s := newSandbox(b)
		for b.Loop() {
			if res, err := s.Run(context.Background(), spec); err != nil || res.ExitCode != 0 {
				b.Fatal(err, res.ExitCode)
			}
		}
	})
}

func TestVersionAtLeast(t *testing.T) {
	for v, want := range map[string]bool{"bubblewrap 0.8.0": true, "bubblewrap 0.7.0": true, "bubblewrap 0.6.1": false, "bubblewrap 1.0": true, "bubblewrap": false, "bubblewrap x.y": false} {
		if got := versionAtLeast(v, 0, 7); got != want {
			t.Errorf("versionAtLeast(%q, 0, 7) = %v", v, got)
		}
	}
}

// Without a cgroup the tree still dies: bwrap's init gets SIGKILL when its
// parent does (--die-with-parent) and takes the PID namespace with it.
func TestKillWithoutCgroup(t *testing.T) {
	newSandbox(t)
	s, err := New(Options{NoCgroup: true})
	if err != nil {
		t.Fatal(err)
	}
	marker := fmt.Sprintf("%d.%d", 3000+os.Getpid()%1000, time.Now().UnixNano()%1000000)
	res := run(t, s, Spec{Command: `setsid sleep ` + marker + ` & sleep infinity`, Limits: Limits{Wall: 500 * time.Millisecond}})
	if res.Limit != "wall time 500ms" {
		t.Fatalf("wall: %s", describe(res))
	}
	assertNoProcess(t, "sleep "+marker)
	res = run(t, s, Spec{Command: `nohup sleep ` + marker + ` >/dev/null 2>&1 & echo left`})
	if string(res.Stdout) != "left\n" {
		t.Fatalf("daemon: %s", describe(res))
	}
	assertNoProcess(t, "sleep "+marker)
}

func TestSymlinkedWorkspaceAndConcurrentRuns(t *testing.T) {
	s := newSandbox(t)
	real := t.TempDir()
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	res := run(t, s, Spec{Command: `pwd; echo x > f`, Workspace: link})
	if string(res.Stdout) != real+"\n" {
		t.Errorf("a symlinked workspace is bound at its real path: %s", describe(res))
	}
	if _, err := os.Stat(filepath.Join(real, "f")); err != nil {
		t.Errorf("write through a symlinked workspace: %v", err)
	}
	errs := make(chan string, 4)
	for i := range 4 {
		go func() {
			r, err := s.Run(context.Background(), Spec{Command: fmt.Sprintf("sleep 0.2; echo run%d", i), Workspace: real, Env: env()})
			if err != nil {
				errs <- err.Error()
				return
			}
			if want := fmt.Sprintf("run%d\n", i); string(r.Stdout) != want {
				errs <- fmt.Sprintf("run %d: %s", i, describe(r))
				return
			}
			errs <- ""
		}()
	}
	for range 4 {
		if e := <-errs; e != "" {
			t.Error(e)
		}
	}
}

func TestStaleCgroupsSwept(t *testing.T) {
	root := probeCgroup()
	if root == nil {
		t.Skip("no writable pids cgroup here")
	}
	dead := exec.Command("/bin/true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	stale := filepath.Join(root.dir, fmt.Sprintf("skillet-%d-1", dead.Process.Pid))
	mine := filepath.Join(root.dir, fmt.Sprintf("skillet-%d-999", os.Getpid()))
	for _, d := range []string{stale, mine} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	defer os.Remove(mine)
	probeCgroup()
	if _, err := os.Stat(stale); err == nil {
		os.Remove(stale)
		t.Error("the cgroup of a dead Skillet process was left")
	}
	if _, err := os.Stat(mine); err != nil {
		t.Error("a live process's cgroup was removed")
	}
}
