package procfs

import (
	"os"
	"os/exec"
	"testing"
	"time"
)

// CPU counts what the process used: a busy loop of 0.3 s of CPU shows.
func TestReadCountsCPU(t *testing.T) {
	st0, ok := Read(os.Getpid())
	if !ok {
		t.Fatal("this process does not read")
	}
	n := 0
	for end := time.Now().Add(300 * time.Millisecond); time.Now().Before(end); {
		n++
	}
	st1, _ := Read(os.Getpid())
	// the loop's CPU, whatever else ran beside it; ticks are 10 ms
	if used := st1.CPU - st0.CPU; used < 100*time.Millisecond {
		t.Errorf("a 300 ms busy loop (%d rounds) counted %v of CPU", n, used)
	}
}

func TestReadSelfAndAnEndedChild(t *testing.T) {
	st, ok := Read(os.Getpid())
	if !ok || st.Ended || st.PPID != os.Getppid() || st.Start == 0 {
		t.Fatalf("this process: %+v, %v; want running, parent %d, a start time", st, ok, os.Getppid())
	}
	cmd := exec.Command("true")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	// not reaped yet: once it has exited it is a zombie
	for deadline := time.Now().Add(10 * time.Second); Running(pid); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("true (%d) still runs after 10 s", pid)
		}
	}
	if st, ok := Read(pid); !ok || !st.Ended || st.PPID != os.Getpid() {
		t.Fatalf("the exited child: %+v, %v; want ended, parent this process", st, ok)
	}
	_ = cmd.Wait()
	if _, ok := Read(pid); ok {
		t.Fatalf("the reaped child %d still reads", pid)
	}
}
