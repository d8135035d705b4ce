// Package config is clawdcode's configuration (CONTRACT.md §7): the user's
// file $CLAWDCODE_HOME/config.toml, the project's
// <project>/.clawdcode/config.toml, the environment and the command-line
// flags, resolved into one typed Config. It is the one place that decides
// precedence: flags, then environment, then the project's file, then the
// user's, then the built-in defaults. Permission rules are not overridden
// but gathered: every allow and every deny of every source counts (a deny
// wins over every allow; that is tools.Permissions' rule).
//
// Contract:
//
//   - A file that is missing is no error. A file that cannot be parsed, or
//     holds a value of the wrong type or out of range (a bad rule, a
//     negative window, wire_api "soap"), is an error wrapping ErrInvalid
//     that names the file and the line. An unknown key is a warning, one
//     line naming the file, the line and the key, and is otherwise ignored.
//   - The API key is never read from a file: api_key_env names the
//     environment variable that holds it (default OPENAI_API_KEY).
//   - File.Asks owns the list of a project file's keys that need trust
//     (commands, allow rules, credentials, the endpoint); Resolve drops
//     them when Sources.TrustProject says no, with one warning naming the
//     file and FlagTrustProject. Who is asked, and when, is the caller's
//     (internal/cli projectTrust, CONTRACT.md §7).
//   - SaveRule adds a rule to a project file's [permissions] allow by
//     editing only that array (or adding the table), keeping every other
//     byte of the file, and replaces the file atomically; a file it cannot
//     edit safely (permissions written as an inline table or dotted keys)
//     is left untouched and the error says so.
//
// A key is added to File (with its check in File.check and its merge in
// Resolve) and to docs/cli.md's table in one change; a key File does not
// know is what the unknown-key warning reports.
//
// Nothing here keeps state between calls; everything is safe for concurrent
// use except two SaveRule calls on one file at the same time.
package config
