package harness

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"skillet/harness/journal"
	"strings"

	"skillet/harness/share"
)

// ExportCast writes the session as an asciicast v2 recording (see
// share.WriteCast), read from its journal as written so far.
func (s *Session) ExportCast(w io.Writer) error {
	sh, err := s.shared()
	if err != nil {
		return err
	}
	return share.WriteCast(w, sh)
}

// ExportHTML writes the session as a self-contained HTML replay with the
// panes at every model call (see share.WriteHTML).
func (s *Session) ExportHTML(w io.Writer) error {
	sh, err := s.shared()
	if err != nil {
		return err
	}
	return share.WriteHTML(w, sh)
}

// shared folds the session's own journal for sharing: the journal, not the
// live state, holds every event's time.
func (s *Session) shared() (*share.Session, error) {
	path := s.journalPath()
	if path == "" {
		return nil, errors.New("this session keeps no journal to export from")
	}
	return ShareJournal(path)
}

// ShareJournal reads the journal at path (a journal file or a session
// folder) and folds it for sharing. Lines that do not decode are skipped
// and named in the result's Problems, with what a crash left open.
func ShareJournal(path string) (*share.Session, error) {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		path = filepath.Join(path, JournalFile)
	}
	f, err := journal.OpenRegular(path)
	if err != nil {
		return nil, fmt.Errorf("read journal: %w", err)
	}
	defer f.Close()
	events, problems, err := journal.Read(f)
	if err != nil {
		return nil, fmt.Errorf("read journal %s: %w", path, err)
	}
	sh, err := share.Fold(events)
	if err != nil {
		if len(problems) > 0 {
			return nil, fmt.Errorf("%s: %w (%s)", path, err, problems[0])
		}
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	for i, p := range problems {
		problems[i] = p + " was skipped"
	}
	sh.Problems = append(problems, sh.Problems...)
	return sh, nil
}

// ExportMarkdown writes the session's transcript as Markdown (/export):
// every message, tool call and result, and the notes of the rule book, with
// each turn's Offered / Delivered / Loaded. It holds no secrets: the API key
// is never part of a session.
func (s *Session) ExportMarkdown(w io.Writer) error {
	type exportCopy struct {
		entries         Transcript
		id, model, base string
		demo            bool
		endsAfter       map[int][]*TurnEnd
		approvals       map[string]Decision
	}
	x := read(s, func(f *frame) exportCopy {
		x := exportCopy{entries: f.st.Entries.View(), id: f.st.ID, model: f.st.Model, base: f.opts.BaseURL, demo: f.opts.Demo,
			endsAfter: map[int][]*TurnEnd{}, approvals: make(map[string]Decision, len(f.st.Approvals))}
		// a turn's end goes after the last entry it recorded: where the
		// fold placed it
		for _, e := range f.st.Ends.All() {
			x.endsAfter[e.Entry] = append(x.endsAfter[e.Entry], e)
		}
		for k, v := range f.st.Approvals {
			x.approvals[k] = v
		}
		return x
	})
	entries, id, model, base, demo, endsAfter, approvals := x.entries, x.id, x.model, x.base, x.demo, x.endsAfter, x.approvals

	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "# Skillet session %s\n\n", id)
	label := model
	if demo {
		label += " (offline demo model, not an LLM)"
	}
	fmt.Fprintf(bw, "- Model: %s\n", label)
	if base != "" {
		fmt.Fprintf(bw, "- Endpoint: %s\n", base)
	}
	turn := 0
	for i, e := range entries.All() {
		if e.Turn != turn && e.Kind == EntryUser {
			turn = e.Turn
			fmt.Fprintf(bw, "\n## Turn %d\n", turn)
		}
		switch e.Kind {
		case EntryUser:
			fmt.Fprintf(bw, "\n**User:**\n\n%s\n", e.Text)
		case EntryAssistant:
			who := "Assistant"
			if e.Manual {
				who = "Manual call"
			}
			if e.Reasoning != "" {
				fmt.Fprintf(bw, "\n<details><summary>Reasoning</summary>\n\n%s\n\n</details>\n", e.Reasoning)
			}
			if e.Text != "" {
				fmt.Fprintf(bw, "\n**%s:**\n\n%s\n", who, e.Text)
			}
			if e.Interrupted {
				bw.WriteString("\n_(interrupted)_\n")
			}
			for _, tc := range e.ToolCalls {
				fmt.Fprintf(bw, "\n**%s → `%s`** (`%s`)\n\n```json\n%s\n```\n", who, tc.Name, tc.ID, prettyJSON(tc.Arguments))
			}
		case EntryTool:
			mark := ""
			if d, ok := approvals[e.ToolCallID]; ok {
				mark = " (" + approvalText[d] + ")"
			}
			if e.IsError {
				mark += " (error)"
			}
			if e.ApprovedBy != "" {
				mark += " (approved by " + e.ApprovedBy + ")"
			}
			fmt.Fprintf(bw, "\n**Result of `%s`**%s (`%s`)\n\n%s\n", e.ToolName, mark, e.ToolCallID, fence(e.Text))
			if sh := e.Shell; sh != nil {
				fmt.Fprintf(bw, "\nRan in `%s` (%s sandbox): exit %d, %d ms%s\n", sh.Dir, sh.Sandbox, sh.ExitCode, sh.DurationMS, limitNote(sh.Limit))
			}
			if e.Diff != "" {
				fmt.Fprintf(bw, "\nChanged files:\n\n%s\n", fence(strings.TrimRight(e.Diff, "\n")))
			}
		case EntryNote:
			fmt.Fprintf(bw, "\n> %s\n", strings.ReplaceAll(e.Text, "\n", "\n> "))
		}
		for _, end := range endsAfter[i+1] {
			writeTurnEnd(bw, end)
		}
	}
	return bw.Flush()
}

var approvalText = map[Decision]string{
	DecisionOnce:       "approved once by the user",
	DecisionAll:        "approved for the session by the user",
	DecisionDeny:       "denied",
	DecisionPolicyDeny: "denied by policy",
}

// limitNote says which limit stopped a command, if one did.
func limitNote(limit string) string {
	if limit == "" {
		return ""
	}
	return ", stopped by the " + limit + " limit"
}

func writeTurnEnd(w io.Writer, e *TurnEnd) {
	if e == nil {
		return
	}
	fmt.Fprintf(w, "\n_Turn %d ended: %s. Offered: %s. Delivered: %s. Loaded: %s._\n", e.Turn, e.StopReason,
		orDash(e.Offered), orDash(e.Delivered), orDash(e.Loaded))
}

func orDash(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

func prettyJSON(s string) string {
	var buf bytes.Buffer
	if json.Indent(&buf, []byte(s), "", "  ") == nil {
		return buf.String()
	}
	return s
}

// fence puts text in a code fence long enough not to be closed by it.
func fence(text string) string {
	f := "```"
	for strings.Contains(text, f) {
		f += "`"
	}
	return f + "\n" + text + "\n" + f
}
