package slash

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
)

func configCommand() Command {
	return Command{
		Name:    "config",
		Summary: "the effective configuration: each key, its value and where it came from; the two config files",
		Run: func(_ context.Context, env *Env, _ string) error {
			about := env.About
			rows := make([][2]string, 0, len(about.Settings))
			for _, s := range about.Settings {
				rows = append(rows, [2]string{s.Key, s.Value + "  (" + s.Source + ")"})
			}
			fmt.Fprintln(env.IO.Out, "Configuration (value, then where it came from):")
			writeTable(env.IO.Out, rows, env.Width)
			fmt.Fprintln(env.IO.Out, "\nFiles:")
			writeTable(env.IO.Out, [][2]string{
				{"user", fileState(about.UserFile)},
				{"project", fileState(about.ProjectFile)},
			}, env.Width)
			return nil
		},
	}
}

// fileState is path and whether it exists.
func fileState(path string) string {
	if path == "" {
		return "unknown"
	}
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return path + " (not there)"
	}
	return path
}
