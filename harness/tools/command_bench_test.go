//go:build unix

package tools

import (
	"bytes"
	"context"
	"os/exec"
	"testing"
	"time"
)

// BenchmarkCommandTool measures a command tool's run through the runner
// (environment, process tree watched and stopped, output caps) as a ratio
// to the floor: the same script started and waited for by os/exec alone,
// timed in the same loop.
func BenchmarkCommandTool(b *testing.B) {
	def := scriptTool(b, "echo_args.sh")
	prog := testdata(b, "scripts", "echo_args.sh")
	dir := b.TempDir()
	r := NewRunner(Options{})
	var floor, runner time.Duration
	for b.Loop() {
		start := time.Now()
		cmd := exec.Command(prog)
		cmd.Dir = dir
		cmd.Stdin = bytes.NewReader([]byte(`{"a":1}`))
		var out bytes.Buffer
		cmd.Stdout = &out
		setProcessGroup(cmd)
		if err := cmd.Run(); err != nil {
			b.Fatal(err)
		}
		floor += time.Since(start)

		start = time.Now()
		if res := r.Run(context.Background(), Call{Def: def, Dir: dir, Args: []byte(`{"a":1}`)}); res.IsError {
			b.Fatal(res.Content)
		}
		runner += time.Since(start)
	}
	b.ReportMetric(float64(runner)/float64(floor), "x-floor")
}
