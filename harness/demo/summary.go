package demo

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// summaryChars is how much of a text result a summary keeps.
const summaryChars = 160

// summary says in a short sentence of prose what a tool result holds, so
// an answer reads like one (and an audience sees no wall of quoted JSON):
// the fields of a JSON object with their short values, the size of a list,
// the first sentence of text.
func summary(result string) string {
	s := strings.TrimSpace(result)
	if strings.HasPrefix(s, "contextChanged: ") {
		return escapeMarkdown(changeSummary(s)) + "."
	}
	if strings.HasPrefix(s, "{") || strings.HasPrefix(s, "[") {
		if out, ok := jsonSummary([]byte(s)); ok {
			return out
		}
	}
	return escapeMarkdown(firstSentence(s, summaryChars))
}

// jsonSummary describes a JSON object by its top-level fields in order,
// or a list by its length.
func jsonSummary(b []byte) (string, bool) {
	var v any
	if json.Unmarshal(b, &v) != nil {
		return "", false
	}
	if list, ok := v.([]any); ok {
		return fmt.Sprintf("a list of %d %s.", len(list), plural(len(list), "item", "items")), true
	}
	if _, ok := v.(map[string]any); !ok {
		return escapeMarkdown(clip(string(b), summaryChars)), true
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	if _, err := dec.Token(); err != nil {
		return "", false
	}
	var parts []string
	more := 0
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return "", false
		}
		var raw json.RawMessage
		if dec.Decode(&raw) != nil {
			return "", false
		}
		if len(parts) == 5 {
			more++
			continue
		}
		parts = append(parts, field(fmt.Sprint(k), raw))
	}
	if len(parts) == 0 {
		return "an empty object.", true
	}
	out := strings.Join(parts, ", ")
	if more > 0 {
		out += fmt.Sprintf(" and %d more %s", more, plural(more, "field", "fields"))
	}
	return out + ".", true
}

// field says one field: "ready: yes", "3 checks", "saved (4 fields)".
func field(key string, raw json.RawMessage) string {
	key = escapeMarkdown(strings.ReplaceAll(key, "_", " "))
	var v any
	_ = json.Unmarshal(raw, &v)
	switch x := v.(type) {
	case []any:
		return fmt.Sprintf("%d %s", len(x), key)
	case map[string]any:
		return fmt.Sprintf("%s (%d %s)", key, len(x), plural(len(x), "field", "fields"))
	case bool:
		if x {
			return key + ": yes"
		}
		return key + ": no"
	case nil:
		return key + ": none"
	case string:
		return key + ": " + escapeMarkdown(clip(x, 60))
	default:
		return key + ": " + escapeMarkdown(string(raw))
	}
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// markdownChars are what Markdown would read as markup in prose.
var markdownChars = strings.NewReplacer("\\", "\\\\", "`", "\\`", "*", "\\*", "_", "\\_", "[", "\\[", "]", "\\]",
	"<", "\\<", ">", "\\>", "#", "\\#", "|", "\\|")

// escapeMarkdown keeps text literal in a Markdown answer.
func escapeMarkdown(s string) string {
	return markdownChars.Replace(strings.Join(strings.Fields(s), " "))
}

// changeSummary is the gist of a load's contextChanged lines: the load
// itself when there is one (evictions come first), up to its first clause.
func changeSummary(s string) string {
	var lines []string
	for _, l := range strings.Split(s, "\n") {
		if rest, ok := strings.CutPrefix(l, "contextChanged: "); ok {
			lines = append(lines, rest)
		}
	}
	pick := lines[0]
	for _, l := range lines {
		if strings.HasPrefix(l, "loaded ") {
			pick = l
			break
		}
	}
	pick, _, _ = strings.Cut(pick, ";")
	if i := strings.Index(pick, " ("); i > 0 && !strings.Contains(pick[i:], ")") {
		pick = pick[:i]
	}
	return pick
}
