package cli

import (
	"fmt"

	"github.com/clawdcode/clawdcode/internal/buildinfo"
	"github.com/spf13/cobra"
)

func newCmdVersion(f *Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print clawdcode's version",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := fmt.Fprintf(f.IO.Out, "clawdcode %s\n", buildinfo.Version)
			return err
		},
	}
}

func newCmdCompletion(f *Factory) *cobra.Command {
	shells := []string{"bash", "zsh", "fish", "powershell"}
	return &cobra.Command{
		Use:   "completion bash|zsh|fish|powershell",
		Short: "Print a shell completion script",
		Long: `Print the completion script for a shell. For example:

  source <(clawdcode completion bash)
  clawdcode completion zsh > "${fpath[1]}/_clawdcode"
  clawdcode completion fish > ~/.config/fish/completions/clawdcode.fish`,
		ValidArgs: shells,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usageErrorf("completion needs one shell: bash, zsh, fish or powershell")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			root := cmd.Root()
			switch args[0] {
			case "bash":
				return root.GenBashCompletionV2(f.IO.Out, true)
			case "zsh":
				return root.GenZshCompletion(f.IO.Out)
			case "fish":
				return root.GenFishCompletion(f.IO.Out, true)
			case "powershell":
				return root.GenPowerShellCompletionWithDesc(f.IO.Out)
			}
			return usageErrorf("unknown shell %q: want bash, zsh, fish or powershell", args[0])
		},
	}
}

// noArgs rejects positional arguments as a usage error (cobra's own would
// be indistinguishable from a runtime error).
func noArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 0 && cmd.HasAvailableSubCommands() {
		return &UsageError{
			Err:   fmt.Errorf("unknown command %q for %q", args[0], cmd.CommandPath()),
			Hints: []string{fmt.Sprintf("`%s --help` lists its commands", cmd.CommandPath())},
		}
	}
	if len(args) > 0 {
		return usageErrorf("unexpected argument %q for %q", args[0], cmd.CommandPath())
	}
	return nil
}

// exactArgs requires n positional arguments, named what in the message.
func exactArgs(n int, what string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		switch {
		case len(args) < n:
			return usageErrorf("%s needs %s", cmd.CommandPath(), what)
		case len(args) > n:
			return usageErrorf("unexpected argument %q for %q", args[n], cmd.CommandPath())
		}
		return nil
	}
}
