package markdown

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// corpusDir finds the corpus of real skills next to the repository: the
// repository is a checkout (../../..) or a worktree one level deeper.
func corpusDir() string {
	for _, d := range []string{"../../../shared/real-corpus/skills", "../../../../shared/real-corpus/skills"} {
		if st, err := os.Stat(d); err == nil && st.IsDir() {
			return d
		}
	}
	return ""
}

// Real SKILL.md files, streamed in random pieces, draw what a whole
// render draws: the final frame and a few on the way. By default a fixed
// sample of the corpus; SKILLET_STREAM_CORPUS=all takes every file.
func TestStreamRealSkills(t *testing.T) {
	dir := corpusDir()
	if dir == "" {
		t.Skip("the real-skill corpus (shared/real-corpus) is not next to this repository")
	}
	files, err := filepath.Glob(filepath.Join(dir, "*", "SKILL.md"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no SKILL.md under %s: %v", dir, err)
	}
	slices.Sort(files)
	step := max(1, len(files)/12)
	if os.Getenv("SKILLET_STREAM_CORPUS") == "all" {
		step = 1
	}
	md := New("dark")
	chunked := 0
	for i := 0; i < len(files); i += step {
		b, err := os.ReadFile(files[i])
		if err != nil {
			t.Fatal(err)
		}
		reply := string(b)
		rng := rand.New(rand.NewPCG(uint64(i), 3))
		w := 30 + rng.IntN(90)
		check := []int{len(reply)}
		for range 4 {
			check = append(check, rng.IntN(len(reply)+1))
		}
		slices.Sort(check) // the text only grows
		againOnce(t, func() string {
			s := NewStream()
			n := 0
			for _, piece := range chunkReply(reply, uint64(i), 200) {
				s.Render("dark", reply[:n], w)
				n += len(piece)
				for _, at := range check {
					if at > n-len(piece) && at <= n {
						text := reply[:at]
						if d := diffLines(s.Render("dark", text, w), md.Render(text, w)); d != "" {
							return fmt.Sprintf("%s at width %d, after %d of %d bytes:\n%s", files[i], w, at, len(reply), d)
						}
					}
				}
			}
			if len(s.chunks) > 0 {
				chunked++
			}
			return ""
		})
	}
	if chunked == 0 {
		t.Fatal("no file streamed in chunks")
	}
}
