package secrets

import (
	"slices"
	"strings"
)

// A variable holds a credential when its name ends in one of secretEnds
// (OPENAI_API_KEY, but not OPENAI_API_KEY_FILE, which names a file) or
// contains one of secretParts (GITHUB_TOKEN, AWS_SECRET_ACCESS_KEY,
// PGPASSWORD). Not "AUTH": GIT_AUTHOR_NAME and SSH_AUTH_SOCK are what git
// needs, and hold nothing secret. secretNames are clawdcode's own variables that hold a credential under
// a name neither list catches: the passphrase sync encrypts with.
var (
	secretEnds  = []string{"API_KEY", "APIKEY"}
	secretParts = []string{"TOKEN", "SECRET", "PASSWORD", "PASSWD"}
	secretNames = []string{"CLAWDCODE_SYNC_KEY"}
)

// IsSecretName reports whether an environment variable's name looks like
// it holds a credential. Case does not matter.
func IsSecretName(name string) bool {
	upper := strings.ToUpper(name)
	return slices.Contains(secretNames, upper) ||
		slices.ContainsFunc(secretEnds, func(s string) bool { return strings.HasSuffix(upper, s) }) ||
		slices.ContainsFunc(secretParts, func(s string) bool { return strings.Contains(upper, s) })
}

// PassThroughVar names the variables the user lets through to tools'
// children although their names look secret, e.g.
// CLAWDCODE_ENV_PASSTHROUGH=GITHUB_TOKEN,NPM_TOKEN.
const PassThroughVar = "CLAWDCODE_ENV_PASSTHROUGH"

// ChildEnv returns environ ("NAME=value" entries) without the variables a
// tool's child must not see: those IsSecretName matches and those named in
// alsoSecret (such as the configured variable of the API key, whatever its
// name), except the ones the user has chosen to hand to tools — named in
// passThrough (from the configuration) or in environ's PassThroughVar. A
// name in both alsoSecret and a pass-through list passes.
func ChildEnv(environ, passThrough, alsoSecret []string) []string {
	for _, kv := range environ {
		if v, ok := strings.CutPrefix(kv, PassThroughVar+"="); ok {
			passThrough = append(slices.Clip(passThrough), ParseNames(v)...)
		}
	}
	out := make([]string, 0, len(environ))
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		hidden := IsSecretName(name) || slices.Contains(alsoSecret, name)
		if hidden && !slices.Contains(passThrough, name) {
			continue
		}
		out = append(out, kv)
	}
	return out
}

// ParseNames splits a list of variable names separated by commas or
// spaces (CLAWDCODE_ENV_PASSTHROUGH), dropping empty ones.
func ParseNames(list string) []string {
	return strings.FieldsFunc(list, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' })
}
