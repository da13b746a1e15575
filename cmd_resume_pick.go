package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"skillet/harness/journal"
	"sort"
	"strings"

	"skillet/harness"
	"skillet/ui"
)

// resumePick is the value a bare --resume (no ID after it) stands for:
// the terminal UI then offers the recent sessions to choose from.
const resumePick = "\x00pick"

// bareResume rewrites a --resume that names no session (the last
// argument, or followed by another flag) so the flag package accepts it.
func bareResume(args []string) []string {
	out := append([]string(nil), args...)
	for i, a := range out {
		if a == "--" {
			break
		}
		if (a == "--resume" || a == "-resume") && (i == len(out)-1 || strings.HasPrefix(out[i+1], "-")) {
			out[i] = "--resume=" + resumePick
		}
	}
	return out
}

// recentKept is how many sessions the picker offers.
const recentKept = 20

// recentSessions are the newest sessions of dir, last written first: id,
// when, turns and first message, read from each journal's turn_start
// lines (a line past its buffer is skipped, never held whole).
func recentSessions(dir string) ([]ui.SessionChoice, error) {
	ents, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("list the sessions in %s: %w", dir, err)
	}
	type found struct {
		id   string
		info os.FileInfo
	}
	var all []found
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		if info, err := os.Stat(filepath.Join(dir, e.Name(), harness.JournalFile)); err == nil && info.Mode().IsRegular() {
			all = append(all, found{e.Name(), info})
		}
	}
	sort.Slice(all, func(i, j int) bool { return all[i].info.ModTime().After(all[j].info.ModTime()) })
	var out []ui.SessionChoice
	for _, f := range all[:min(len(all), recentKept)] {
		c := ui.SessionChoice{ID: f.id, When: f.info.ModTime().Local().Format("2006-01-02 15:04")}
		c.Turns, c.First = journalTurns(filepath.Join(dir, f.id, harness.JournalFile))
		out = append(out, c)
	}
	return out, nil
}

// journalTurns counts a journal's turns and returns its first message.
func journalTurns(path string) (turns int, first string) {
	f, err := journal.OpenRegular(path)
	if err != nil {
		return 0, ""
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 64<<10)
	for {
		line, err := r.ReadSlice('\n')
		whole := err == nil || err == io.EOF
		for err == bufio.ErrBufferFull { // a long line: not a turn_start's
			_, err = r.ReadSlice('\n')
			whole = false
		}
		if whole && strings.HasPrefix(string(line), `{"type":"turn_start"`) {
			var ts struct {
				Text string `json:"text"`
			}
			if json.Unmarshal(line, &ts) == nil {
				turns++
				if turns == 1 {
					first = ts.Text
				}
			}
		}
		if err != nil {
			return turns, first
		}
	}
}

// pickSession asks which recent session --resume reopens; "" when the user
// chose none.
func pickSession(c *common, stdin io.Reader, stdout io.Writer) (string, error) {
	dir := sessionsDir(c.sessionDir)
	choices, err := recentSessions(dir)
	if err != nil {
		return "", err
	}
	if len(choices) == 0 {
		return "", usageError{fmt.Sprintf("--resume: no session to reopen in %s", dir)}
	}
	id, ok, err := ui.PickSession(choices, stdin, stdout)
	if err != nil || !ok {
		return "", err
	}
	return id, nil
}
