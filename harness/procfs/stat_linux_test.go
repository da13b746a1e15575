package procfs

import (
	"os"
	"os/exec"
	"testing"
	"time"
)

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
