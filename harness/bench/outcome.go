package bench

import (
	"encoding/base64"
	"io/fs"
	"sort"

	"skillet/harness/event"
)

// ToolUse is one tool call the model made.
type ToolUse struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// Changed is a file of the workspace that the run's tool calls left
// created, modified or deleted, with its final content.
type Changed struct {
	Path    string `json:"path"`
	Op      string `json:"op"`
	Content string `json:"content,omitempty"`
	// Binary marks content that is not text (not shown to the grader).
	Binary  bool `json:"binary,omitempty"`
	Omitted bool `json:"omitted,omitempty"`
	// Cut marks content kept only in part in grading.json (the whole file
	// is in the run's outputs/ folder and its journal).
	Cut bool `json:"cut,omitempty"`
}

// keptContent is how much of a changed file grading.json keeps.
const keptContent = 64 << 10

// trimmed is the outcome as grading.json keeps it: long files cut.
func (o Outcome) trimmed() Outcome {
	out := o
	out.Changed = make([]Changed, len(o.Changed))
	for i, c := range o.Changed {
		if len(c.Content) > keptContent {
			c.Content, c.Cut = c.Content[:keptContent], true
		}
		out.Changed[i] = c
	}
	return out
}

// Outcome is what one run did, read from its events.
type Outcome struct {
	Answer     string         `json:"answer"`
	Tools      []ToolUse      `json:"tools,omitempty"`
	ToolCounts map[string]int `json:"tool_counts,omitempty"`
	Loaded     []string       `json:"loaded,omitempty"`
	Changed    []Changed      `json:"changed,omitempty"`
	// Workspace is the run's workspace folder.
	Workspace  string `json:"workspace,omitempty"`
	Tokens     int    `json:"tokens"`
	ModelCalls int    `json:"model_calls"`
	ToolCalls  int    `json:"tool_calls"`
	ToolErrors int    `json:"tool_errors"`
	StopReason string `json:"stop_reason,omitempty"`
	// Error says why the run failed before it could be graded; "" when it
	// ran to the end of its turn.
	Error string `json:"error,omitempty"`
}

// Read folds a run's events (its one turn) into an Outcome.
func Read(events []event.Event) Outcome {
	o := Outcome{ToolCounts: map[string]int{}}
	changed := map[string]Changed{}
	var lastError string
	sawEnd := false
	for _, e := range events {
		if event.TurnOf(e) > 1 {
			break
		}
		switch x := e.(type) {
		case *event.SessionStart:
			if x.Workspace != nil {
				o.Workspace = x.Workspace.Root
			}
		case *event.Assistant:
			if x.Manual {
				continue
			}
			o.ModelCalls++
			if x.Usage != nil {
				o.Tokens += x.Usage.TotalTokens
			}
			for _, tc := range x.ToolCalls {
				o.Tools = append(o.Tools, ToolUse{Name: tc.Name, Arguments: tc.Arguments})
			}
		case *event.ToolResult:
			if x.Manual || x.OverLimit {
				continue
			}
			o.ToolCalls++
			o.ToolCounts[x.Name]++
			if x.IsError {
				o.ToolErrors++
			}
			if x.Activated != "" {
				// a profile's own activation (Claude Code's Skill tool, …)
				o.Loaded = appendNew(o.Loaded, x.Activated)
			}
		case *event.SkillLoaded:
			o.Loaded = appendNew(o.Loaded, x.Skill)
		case *event.SkillActivated:
			o.Loaded = appendNew(o.Loaded, x.Skill)
		case *event.WorkspaceChanged:
			for _, c := range x.Changes {
				if fs.FileMode(c.Mode).IsDir() {
					continue // a folder's files say what it holds
				}
				ch := Changed{Path: c.Path, Op: c.Op, Content: c.Content, Omitted: c.Omitted}
				if c.Base64 {
					if b, err := base64.StdEncoding.DecodeString(c.Content); err == nil {
						ch.Content = string(b)
					}
					ch.Binary = true
				}
				if prev, ok := changed[c.Path]; ok && prev.Op == "create" && c.Op != "delete" {
					ch.Op = "create"
				}
				changed[c.Path] = ch
			}
		case *event.Error:
			lastError = x.Message
		case *event.TurnEnd:
			sawEnd = true
			o.Answer = x.Answer
			o.StopReason = string(x.StopReason)
			for _, sk := range x.Loaded {
				o.Loaded = appendNew(o.Loaded, sk)
			}
		}
	}
	for _, c := range changed {
		o.Changed = append(o.Changed, c)
	}
	sort.Slice(o.Changed, func(i, j int) bool { return o.Changed[i].Path < o.Changed[j].Path })
	switch {
	case !sawEnd:
		o.Error = firstOf(lastError, "the turn did not end")
	case o.StopReason == string(event.StopError):
		o.Error = firstOf(lastError, "model error")
	case o.StopReason == string(event.StopInterrupted), o.StopReason == string(event.StopCancelled):
		o.Error = firstOf(lastError, "the turn was "+o.StopReason)
	}
	return o
}

func appendNew(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}

func firstOf(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}
