package harnesstest

import (
	"strings"
	"testing"
)

func TestFirstDiff(t *testing.T) {
	if d := FirstDiff("a\nb\nc", "a\nB\nc"); !strings.HasPrefix(d, "line 2\n") || !strings.Contains(d, `"B"`) {
		t.Errorf("FirstDiff = %q", d)
	}
	if d := FirstDiff("a\n", "a"); d != "same lines, different endings" {
		t.Errorf("only the ending differs: %q", d)
	}
}
