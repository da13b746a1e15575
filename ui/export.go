package ui

import (
	"errors"
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
		if e, ok := eng.(interface{ ExportCast(io.Writer) error }); ok {
			return e.ExportCast(w)
		}
		return errors.New("this session cannot be written as an asciicast; /export FILE.md writes Markdown")
	case ".html", ".htm":
		if e, ok := eng.(interface{ ExportHTML(io.Writer) error }); ok {
			return e.ExportHTML(w)
		}
		return errors.New("this session cannot be written as an HTML replay; /export FILE.md writes Markdown")
	}
	return eng.ExportMarkdown(w)
}
