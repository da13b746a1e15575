//go:build linux

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"skillet/harness/procfs"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestBinaryStopsAToolsDaemon runs the real binary headless with a command
// tool that leaves a daemon behind through a parent that exits: the daemon
// is re-parented to Skillet (its child subreaper), not to init, and is gone
// once the tool has ended.
func TestBinaryStopsAToolsDaemon(t *testing.T) {
	for _, prog := range []string{"setsid", "go"} {
		if _, err := exec.LookPath(prog); err != nil {
			t.Skipf("%s is not installed", prog)
		}
	}
	repo := mustGetwd(t)
	// The build keeps the caches of the go command: isolate moves HOME.
	goenv, err := exec.Command("go", "env", "GOCACHE", "GOMODCACHE", "GOPATH").Output()
	if err != nil {
		t.Skipf("go env: %v", err)
	}
	caches := strings.Fields(string(goenv))
	tmp := isolate(t)
	bin := filepath.Join(tmp, "skillet")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Dir = repo
	if len(caches) == 3 {
		build.Env = append(os.Environ(), "GOCACHE="+caches[0], "GOMODCACHE="+caches[1], "GOPATH="+caches[2])
	}
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}

	root := filepath.Join(tmp, "skills")
	writeSkill(t, root, "daemons", "tools:\n  - name: spawn\n")
	tools := filepath.Join(root, "daemons", "tools")
	os.MkdirAll(tools, 0o755)
	os.WriteFile(filepath.Join(tools, "spawn.yaml"), []byte("name: spawn\nversion: 1\ndescription: Leave a daemon.\ncommand: [\"./spawn.sh\"]\nenv: [OUT]\n"), 0o644)
	// The daemon notes its pid, then (once its parent is gone) its new
	// parent and that one's parent, then sleeps. Pids come from /proc:
	// the tool's $$ is its PID namespace's.
	os.WriteFile(filepath.Join(tools, "spawn.sh"), []byte(`#!/bin/sh
cat > /dev/null
( setsid sh -c 'read -r p _ < /proc/self/stat; echo $p > "$OUT/pid"; sleep 0.5; read -r _ _ _ pp _ < /proc/self/stat; read -r _ _ _ gp _ < /proc/$pp/stat; echo $gp > "$OUT/gppid"; echo $pp > "$OUT/ppid.tmp"; mv "$OUT/ppid.tmp" "$OUT/ppid"; exec sleep 300' > /dev/null 2>&1 < /dev/null & )
while [ ! -e "$OUT/ppid" ]; do sleep 0.05; done
echo spawned
`), 0o755)

	out := t.TempDir()
	cmd := exec.Command(bin, "run", "--skills", root, "--approve", "spawn", "load daemons", "call spawn {}")
	cmd.Env = append(os.Environ(), "OUT="+out)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	skilletPid := cmd.Process.Pid
	if err := cmd.Wait(); err != nil {
		t.Fatalf("skillet run: %v\n%s", err, stderr.String())
	}

	pid := readInt(t, filepath.Join(out, "pid"))
	// Re-parented to Skillet (its child subreaper), or, where the tool has
	// a PID namespace of its own, to the namespace's init, Skillet's child.
	if ppid, gppid := readInt(t, filepath.Join(out, "ppid")), readInt(t, filepath.Join(out, "gppid")); ppid != skilletPid && gppid != skilletPid {
		t.Errorf("the orphaned daemon's parent is %d (whose parent is %d), want Skillet (%d) or its child", ppid, gppid, skilletPid)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		if !procfs.Running(pid) {
			break
		}
		if time.Now().After(deadline) {
			exec.Command("kill", "-9", strconv.Itoa(pid)).Run()
			t.Fatalf("the tool's daemon %d outlived the tool and Skillet", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func mustGetwd(t *testing.T) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	return wd
}

func readInt(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return n
}
