// Command clawdcode is a coding agent for any OpenAI-compatible server.
package main

import (
	"os"

	"github.com/clawdcode/clawdcode/internal/cli"
)

func main() {
	os.Exit(cli.Main())
}
