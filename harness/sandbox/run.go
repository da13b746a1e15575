package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"
)

// readerGrace is how long output may still arrive after the command's tree
// was killed; a process that escaped the kill (unconfined, no cgroup) must
// not hold Run open through an inherited pipe.
const readerGrace = 2 * time.Second

// launch is one started command, built by the platform code.
type launch struct {
	cmd    *exec.Cmd
	files  []*os.File   // child's ends of extra pipes, closed after Start
	hold   *os.File     // written once the process is in its cgroup, or nil
	status *bwrapStatus // confined only
}

// Run runs spec.Command and waits for it and everything it started. The
// error is non-nil only when the command could not be started; a command
// that fails or is killed by a limit is a Result.
func (s *Sandbox) Run(ctx context.Context, spec Spec) (Result, error) {
	p, err := s.prepare(spec)
	if err != nil {
		return Result{}, err
	}
	if err := ctx.Err(); err != nil {
		return Result{}, fmt.Errorf("sandbox: not started: %w", err)
	}
	var cg *cgroup
	if s.cg != nil {
		lim := p.lim
		if s.confined {
			lim.Processes++ // bwrap's own monitor process is in the cgroup too
		} else {
			lim.Processes += initProcesses() // and so is the PID namespace's init
		}
		cg, err = s.cg.create(fmt.Sprintf("skillet-%d-%d", os.Getpid(), s.seq.Add(1)), lim)
		if err != nil {
			return Result{}, fmt.Errorf("sandbox: %w", err)
		}
		defer cg.remove()
	}
	l, err := s.launch(p, cg != nil)
	if err != nil {
		return Result{}, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		return Result{}, fmt.Errorf("sandbox: stdout pipe: %w", err)
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		outR.Close()
		outW.Close()
		return Result{}, fmt.Errorf("sandbox: stderr pipe: %w", err)
	}
	l.cmd.Stdout, l.cmd.Stderr = outW, errW
	if spec.Stdin != nil {
		l.cmd.Stdin = spec.Stdin
	}
	l.cmd.WaitDelay = time.Second
	setProcAttr(l.cmd)

	closeOnExec()
	start := time.Now()
	err = l.cmd.Start()
	outW.Close()
	errW.Close()
	for _, f := range l.files {
		f.Close()
	}
	if err != nil {
		outR.Close()
		errR.Close()
		if l.hold != nil {
			l.hold.Close()
		}
		return Result{}, fmt.Errorf("sandbox: start %s: %w", l.cmd.Path, err)
	}
	pid := l.cmd.Process.Pid
	if l.status != nil {
		defer l.status.release()
	}
	kill := func() {
		killGroup(pid)
		if l.status != nil {
			l.status.killInit()
		}
		if cg != nil {
			cg.kill()
		}
	}

	capt := newCapture(p.lim.Output)
	var readers sync.WaitGroup
	readers.Add(2)
	go capt.pump(outR, false, &readers)
	go capt.pump(errR, true, &readers)

	if l.hold != nil {
		if err := release(l.hold, pid, cg); err != nil {
			kill()
			l.cmd.Wait()
			closeReaders(outR, errR, &readers)
			var res Result
			capt.fill(&res)
			return Result{}, fmt.Errorf("sandbox: %w%s", err, stderrNote(res.Stderr))
		}
	}

	waited := make(chan error, 1)
	go func() { waited <- l.cmd.Wait() }()
	wall := time.NewTimer(p.lim.Wall)
	defer wall.Stop()
	var reason string
	select {
	case <-waited:
	case <-wall.C:
		reason = "wall time " + fmtDur(p.lim.Wall)
	case <-capt.overflow:
		reason = "output " + fmtBytes(int64(p.lim.Output)*killFactor)
	case <-ctx.Done():
		reason = "cancelled"
	}
	if reason != "" {
		kill()
		<-waited
	}
	res := Result{Duration: time.Since(start)}
	// Whatever the command left behind (a daemon in its own session) goes
	// now: in the sandbox the PID namespace died with its init; unconfined,
	// the process group and the cgroup are killed.
	kill()
	closeReaders(outR, errR, &readers)
	capt.fill(&res)

	res.ExitCode, res.Signal = exitInfo(l.cmd.ProcessState)
	if reason != "" {
		res.ExitCode, res.Signal, res.Limit = -1, "SIGKILL", reason
		return res, nil
	}
	if l.status != nil && !l.status.started() {
		return Result{}, fmt.Errorf("sandbox: bwrap could not start the command%s", stderrNote(res.Stderr))
	}
	// bwrap, like bash, reports a command killed by signal N as 128+N.
	if res.Signal == "" && res.ExitCode > 128 && res.ExitCode < 128+65 {
		if name := signalName(res.ExitCode - 128); name != "" {
			res.ExitCode, res.Signal = -1, name
		}
	}
	res.Limit = limitHit(res, p.lim)
	if res.Limit == "" && cg != nil {
		res.Limit = cg.limitHit(p.lim)
	}
	// RLIMIT_NPROC leaves no record; a refused fork says EAGAIN.
	if res.Limit == "" && cg == nil && s.processMechanism() == "RLIMIT_NPROC" && bytes.Contains(res.Output, []byte("Resource temporarily unavailable")) {
		res.Limit = "processes " + strconv.Itoa(p.lim.Processes)
	}
	return res, nil
}

// release puts the held process into its cgroup and lets it go on.
func release(hold *os.File, pid int, cg *cgroup) error {
	defer hold.Close()
	if err := cg.add(pid); err != nil {
		return err
	}
	if _, err := hold.Write([]byte{'\n'}); err != nil {
		return fmt.Errorf("release the command: %w", err)
	}
	return nil
}

// closeReaders waits a moment for the output pipes to drain, then closes them.
func closeReaders(outR, errR *os.File, readers *sync.WaitGroup) {
	done := make(chan struct{})
	go func() { readers.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(readerGrace):
	}
	outR.Close()
	errR.Close()
	<-done
}

// limitHit names the per-process limit a finished command ran into.
func limitHit(res Result, lim Limits) string {
	switch res.Signal {
	case "SIGXCPU":
		return "CPU time " + fmtDur(lim.CPU)
	case "SIGXFSZ":
		return "file size " + fmtBytes(lim.FileSize)
	}
	if (res.ExitCode != 0 || res.Signal != "") && looksOutOfMemory(res.Stderr) {
		return "memory " + fmtBytes(lim.Memory)
	}
	if bytes.Contains(res.Stderr, []byte("File size limit exceeded")) {
		return "file size " + fmtBytes(lim.FileSize)
	}
	if bytes.Contains(res.Stderr, []byte("CPU time limit exceeded")) {
		return "CPU time " + fmtDur(lim.CPU)
	}
	return ""
}

// stderrNote is ": <what the command or bwrap said>" for an error, or "".
func stderrNote(stderr []byte) string {
	msg := strings.TrimSpace(string(stderr))
	if msg == "" {
		return ""
	}
	if len(msg) > 500 {
		msg = msg[:500] + "…"
	}
	return ": " + msg
}

// holdWait is shell text that waits until the process is in its cgroup
// (fd 3 is written then).
const holdWait = "read _ <&3; exec 3<&-; "

// limitScript is the shell text that sets the per-process limits and then
// runs the command ($1) in a fresh shell, so the command sees a plain
// `shell -c`. bash and dash count -f and -d differently.
func limitScript(shell string, lim Limits, nproc, hold bool) string {
	var b strings.Builder
	if hold {
		b.WriteString(holdWait)
	}
	cpu := int64((lim.CPU + time.Second - 1) / time.Second)
	fsizeUnit := int64(1024)
	nprocFlag := "-u"
	if !strings.HasSuffix(shell, "bash") {
		fsizeUnit, nprocFlag = 512, "-p"
	}
	set := []string{
		"-c 0",
		"-S -t " + strconv.FormatInt(cpu, 10),
		"-H -t " + strconv.FormatInt(cpu+1, 10),
		"-d " + strconv.FormatInt((lim.Memory+1023)/1024, 10),
		"-f " + strconv.FormatInt((lim.FileSize+fsizeUnit-1)/fsizeUnit, 10),
	}
	if nproc {
		set = append(set, nprocFlag+" "+strconv.Itoa(lim.Processes))
	}
	for i, s := range set {
		if i > 0 {
			b.WriteString(" && ")
		}
		b.WriteString("ulimit " + s)
	}
	b.WriteString(` || { echo "sandbox: cannot set resource limits" >&2; exit 126; }; exec ` + shell + ` -c "$1"`)
	return b.String()
}

// shellPath is /bin/bash, or /bin/sh where there is no bash.
func shellPath() string {
	if _, err := os.Stat("/bin/bash"); err == nil {
		return "/bin/bash"
	}
	return "/bin/sh"
}

// errNoSandbox is wrapped by New's error so callers can tell it apart.
var errNoSandbox = errors.New("no sandbox")

// ErrNoSandbox reports whether err came from New finding no way to confine.
func ErrNoSandbox(err error) bool { return errors.Is(err, errNoSandbox) }
