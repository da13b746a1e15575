// Command skillet is a terminal harness for trying out agent skills live:
// chat with a model over your skills and watch the transcript, the loaded
// skills, the exact <current_context> and the tools side by side, while the
// skill lifecycle rules apply at every turn.
package main

import (
	"fmt"
	"io"
	"os"
)

const mainUsage = `Skillet: try out agent skills live.

usage:
  skillet [flags]                  the terminal UI (see skillet -h)
  skillet run [flags] MESSAGE...   run turns headless and print the answers
  skillet validate [--json] [PATH...]
                                   check skills against the Agent Skills spec
  skillet help                     this text

With no OPENAI_API_KEY and no endpoint, Skillet uses its built-in offline
demo model (rule-based, not an LLM). With no skills folder, it uses its
built-in sample skills.
`

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		switch args[0] {
		case "run":
			return runHeadless(args[1:], stdin, stdout, stderr)
		case "validate":
			return runValidate(args[1:], stdout, stderr)
		case "help", "--help", "-help":
			fmt.Fprint(stdout, mainUsage)
			return 0
		}
	}
	return runTUI(args, stdout, stderr)
}
