package agenttools

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkRead1MB reads a whole 1 MB text file (20,560 lines), numbered,
// through Skillet's read (the agents' own reads stop at 50-256 KB or
// 25,000 tokens). Target: ≤ 5 ms.
func BenchmarkRead1MB(b *testing.B) {
	root, err := filepath.EvalSymlinks(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	line := strings.Repeat("abcdefghij", 5) + "\n" // 51 bytes
	content := strings.Repeat(line, 1<<20/len(line))
	if err := os.WriteFile(filepath.Join(root, "big.txt"), []byte(content), 0o644); err != nil {
		b.Fatal(err)
	}
	env := Env{Files: testResolver{root: root}}
	def := mustDef(b, "skillet", "read")
	args := json.RawMessage(`{"path":"big.txt","limit":30000}`)
	b.SetBytes(int64(len(content)))
	b.ResetTimer()
	for b.Loop() {
		res := Run(context.Background(), env, def, args)
		if res.IsError || !strings.Contains(res.Content, "[lines 1-20560 of 20560]") {
			b.Fatalf("unexpected result: %.200s", res.Content)
		}
	}
}

// BenchmarkGrep10k searches a 10,000-file workspace (100 folders of 100
// files, ~1 KB each) for a word in one file in a hundred. Target: ≤ 1 s.
func BenchmarkGrep10k(b *testing.B) {
	root, err := filepath.EvalSymlinks(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	filler := strings.Repeat("lorem ipsum dolor sit amet\n", 40)
	for d := 0; d < 100; d++ {
		dir := filepath.Join(root, fmt.Sprintf("pkg%02d", d))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		for i := 0; i < 100; i++ {
			body := filler
			if i == 7 {
				body += "needle here\n"
			}
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%03d.go", i)), []byte(body), 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
	env := Env{Files: testResolver{root: root}}
	def := mustDef(b, "claude-code", "Grep")
	args := json.RawMessage(`{"pattern":"needle","output_mode":"content"}`)
	b.ResetTimer()
	for b.Loop() {
		res := Run(context.Background(), env, def, args)
		if res.IsError || strings.Count(res.Content, "needle here") != 100 {
			b.Fatalf("unexpected result: %.200s", res.Content)
		}
	}
}
