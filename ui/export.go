package ui

import (
	"io"
	"path/filepath"
	"strings"
)

// exportAs writes the session in the format the file's extension names:
// .cast an asciicast v2 recording, .html an HTML replay, anything else
// Markdown.
func exportAs(eng Engine, path string, w io.Writer) error {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".cast":
		return eng.ExportCast(w)
	case ".html", ".htm":
		return eng.ExportHTML(w)
	}
	return eng.ExportMarkdown(w)
}
