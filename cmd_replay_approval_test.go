package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// runs counts the lines the boom tool appended to its file: how often it ran.
func runs(t *testing.T, file string) int {
	t.Helper()
	b, _ := os.ReadFile(file)
	return strings.Count(string(b), "run")
}

// A cassette never answers approvals for a tool that runs: the recording
// approved the ask tool boom, and an edited cassette (its tool call's
// arguments changed) replayed without --approve does not run it; replay
// diff serves the recorded results and runs nothing unless --run-tools,
// and then only what --approve allows.
func TestCassetteNeverApprovesARunningTool(t *testing.T) {
	tmp := isolate(t)
	ran := filepath.Join(tmp, "ran.txt")
	skillsDir := filepath.Join(tmp, "skills")
	boomSkills(t, skillsDir, "echo run >> "+ran+"; echo \"checked $(wc -l < "+ran+")\"")
	rec := filepath.Join(tmp, "rec.jsonl")
	msgs := []string{"load boomer", "call boom {}"}
	args := append([]string{"--skills", skillsDir}, msgs...)
	code, out, errOut := runBinary(t, append([]string{"run", "--offline", "--approve", "boom", "--record", rec}, args...)...)
	if code != 0 || runs(t, ran) != 1 {
		t.Fatalf("record: exit %d, %d runs\n%s\n%s", code, runs(t, ran), out, errOut)
	}
	if !strings.Contains(readText(t, rec), `"approval":"once"`) {
		t.Fatalf("the recording holds no approval:\n%s", readText(t, rec))
	}
	// the edit: the reply asks for boom with arguments of the cassette's choosing
	edited := filepath.Join(tmp, "edited.jsonl")
	text := strings.ReplaceAll(readText(t, rec), `\"arguments\":\"{}\"`, `\"arguments\":\"{\\\"x\\\":1}\"`)
	if err := os.WriteFile(edited, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, cas := range []string{rec, edited} {
		runBinary(t, append([]string{"run", "--replay", cas, "--lenient"}, args...)...)
		if n := runs(t, ran); n != 1 {
			t.Fatalf("run --replay %s without --approve ran the ask tool (%d runs)", filepath.Base(cas), n)
		}
	}

	code, out, errOut = runBinary(t, "replay", "diff", rec)
	if code != 0 || runs(t, ran) != 1 {
		t.Fatalf("replay diff ran the tool or differed: exit %d, %d runs\n%s\n%s", code, runs(t, ran), out, errOut)
	}
	if !strings.Contains(out, "all 3 requests are as recorded") && !strings.Contains(out, "requests are as recorded") {
		t.Fatalf("replay diff with served results:\n%s", out)
	}
	code, out, _ = runBinary(t, "replay", "diff", rec, "--run-tools")
	if runs(t, ran) != 1 {
		t.Fatalf("replay diff --run-tools applied the recorded approval (%d runs)\n%s", runs(t, ran), out)
	}
	if code != 1 || !strings.Contains(out, `the recording answered "boom"`) || !strings.Contains(out, "not applied") {
		t.Fatalf("replay diff --run-tools should show the recorded answer and differ (exit %d):\n%s", code, out)
	}
	code, out, errOut = runBinary(t, "replay", "diff", rec, "--run-tools", "--approve", "boom")
	if runs(t, ran) != 2 {
		t.Fatalf("replay diff --run-tools --approve boom should run the tool once more: %d runs (exit %d)\n%s\n%s", runs(t, ran), code, out, errOut)
	}
	if code, _, errOut = runBinary(t, "replay", "diff", rec, "--approve", "boom"); code != 2 || !strings.Contains(errOut, "need --run-tools") {
		t.Fatalf("--approve without --run-tools: exit %d, %s", code, errOut)
	}
	code, out, _ = runBinary(t, "replay", "--help")
	if code != 0 || !strings.Contains(out, "No tool runs") || !strings.Contains(out, "--run-tools") {
		t.Fatalf("replay help does not say that no tool runs:\n%s", out)
	}
}

func readText(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A cassette damaged right after its header is an error for replay diff,
// never "all 0 requests are as recorded".
func TestReplayDiffOfADamagedCassetteFails(t *testing.T) {
	tmp := isolate(t)
	_, rec := recordTwoSkills(t, tmp)
	lines := strings.SplitN(readText(t, rec), "\n", 2)
	damaged := filepath.Join(tmp, "damaged.jsonl")
	os.WriteFile(damaged, []byte(lines[0]+"\n{\"kind\":\"call\",garbage\n"+lines[1]), 0o600)
	code, out, errOut := runBinary(t, "replay", "diff", damaged)
	if code != 1 || strings.Contains(out, "are as recorded") || !strings.Contains(out, "the cassette is damaged") || !strings.Contains(out, "line 2") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
}

// --config given to replay diff is not ignored: its skills_dirs are the
// folders replayed against, and a config that lists none says the
// recorded folders are used.
func TestReplayDiffTakesTheConfigsFolders(t *testing.T) {
	tmp := isolate(t)
	_, rec := recordTwoSkills(t, tmp)
	other := filepath.Join(tmp, "other")
	writeSkill(t, other, "alpha", "")
	writeSkill(t, other, "beta", "")
	p := filepath.Join(other, "beta", "SKILL.md")
	os.WriteFile(p, []byte(strings.Replace(readText(t, p), "The beta skill.", "A changed beta skill.", 1)), 0o600)
	cfg := filepath.Join(tmp, "cfgdir", "skillet.toml")
	os.MkdirAll(filepath.Dir(cfg), 0o700)
	os.WriteFile(cfg, []byte(fmt.Sprintf("skills_dirs = [%q]\n", other)), 0o600)
	code, out, errOut := runBinary(t, "replay", "diff", rec, "--config", cfg)
	if code != 1 || !strings.Contains(out, "the description of beta changed") {
		t.Fatalf("--config with other folders: exit %d\n%s\n%s", code, out, errOut)
	}
	bare := filepath.Join(tmp, "bare.toml")
	os.WriteFile(bare, []byte("[session]\n"), 0o600)
	code, out, errOut = runBinary(t, "replay", "diff", rec, "--config", bare)
	if !strings.Contains(out+errOut, "lists no skills_dirs: the recorded skill folders are used") {
		t.Fatalf("--config without folders: exit %d\n%s\n%s", code, out, errOut)
	}
}
