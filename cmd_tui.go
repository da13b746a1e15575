package main

import (
	"fmt"
	"io"
)

// runTUI starts the terminal UI.
func runTUI(args []string, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "skillet: the terminal UI is not wired yet; use skillet run")
	return 2
}
