package view

import (
	"skillet/harness/paged"
	"skillet/harness/rulebook"
)

// Transcript is a view of a session's entries (rulebook.Entry, which the
// fold records); older ones are read back from sealed pages (see
// harness/paged). Entries never change once recorded.
type Transcript = paged.List[rulebook.Entry]

// TranscriptOf returns a transcript of entries held as they are.
func TranscriptOf(entries []rulebook.Entry) Transcript { return paged.Of(entries) }
