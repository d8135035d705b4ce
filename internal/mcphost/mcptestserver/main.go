// Command mcptestserver is a tiny stdio MCP server, for tests only, built
// on the official Go SDK: it publishes the tools named on its command line,
// and each answers "<label>: <tool>" (label from -label), so a test can
// have servers publish whatever names it needs — two of one name, say —
// and tell which one a call reached, without node.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	label := flag.String("label", "mcptestserver", "what each tool's answer starts with")
	flag.Parse()
	server := mcp.NewServer(&mcp.Implementation{Name: "mcptestserver", Version: "0"}, nil)
	for _, name := range flag.Args() {
		answer := fmt.Sprintf("%s: %s", *label, name)
		server.AddTool(&mcp.Tool{
			Name:        name,
			Description: "answers " + answer,
			InputSchema: map[string]any{"type": "object"},
		}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: answer}}}, nil
		})
	}
	if err := server.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, "mcptestserver:", err)
		os.Exit(1)
	}
}
