// Command agentry runs conversational AI agents: the Kubernetes operator, the agent runtime
// and a local development server, in one binary.
package main

import (
	"os"

	"github.com/agentry-dev/agentry/cmd"
)

func main() {
	os.Exit(cmd.Execute())
}
