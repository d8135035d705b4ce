// Command slowserver is a tiny stdio MCP server for tests, built with the
// official Go SDK: it waits -delay before it answers anything (as a server
// started by a first `npx -y` does), or forever with -hang, then offers
// one tool, "greet", that answers "hello <name>", and -more N tools more
// (task_001 …), for tests of how many tools go out. The tests of start-up
// that must not wait for a slow server build and configure it.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type greetArgs struct {
	Name string `json:"name" jsonschema:"who to greet"`
}

func main() {
	delay := flag.Duration("delay", 0, "wait this long before answering")
	hang := flag.Bool("hang", false, "never answer")
	more := flag.Int("more", 0, "offer this many tools more")
	flag.Parse()
	if *hang {
		// Read and never answer. Not select{}: with nothing else to wait
		// for, a static (cgo-free) build is killed by the runtime's
		// deadlock check, and the host sees the server exit instead.
		_, _ = io.Copy(io.Discard, os.Stdin)
		return
	}
	time.Sleep(*delay)
	srv := mcp.NewServer(&mcp.Implementation{Name: "slowserver", Version: "1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "greet", Description: "Greet someone by name."},
		func(_ context.Context, _ *mcp.CallToolRequest, in greetArgs) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "hello " + in.Name}}}, nil, nil
		})
	for i := 1; i <= *more; i++ {
		name := fmt.Sprintf("task_%03d", i)
		mcp.AddTool(srv, &mcp.Tool{Name: name, Description: fmt.Sprintf("Carry out task number %d of the project's long list.", i)},
			func(_ context.Context, _ *mcp.CallToolRequest, in greetArgs) (*mcp.CallToolResult, any, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: name + " done for " + in.Name}}}, nil, nil
			})
	}
	if err := srv.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, "slowserver:", err)
		os.Exit(1)
	}
}
