package sandbox

import (
	"fmt"
	"strings"
)

// seatbeltProfile is the sandbox-exec profile (macOS) of pol: everything
// is allowed but writing outside the writable roots, writing the
// protected paths, reading the denied ones, and any connection out but
// to the proxy on the loopback at proxyPort (0: none; with pol.Network,
// any host).
func seatbeltProfile(pol Policy, proxyPort int) string {
	var b strings.Builder
	b.WriteString("(version 1)\n(allow default)\n")
	if pol.Mode == Off {
		return b.String()
	}
	b.WriteString("(deny file-write*)\n(allow file-write*\n")
	for _, root := range pol.WritableRoots() {
		fmt.Fprintf(&b, "  (subpath %s)\n", sbString(root))
	}
	for _, dev := range []string{"/dev/null", "/dev/zero", "/dev/tty", "/dev/dtracehelper"} {
		fmt.Fprintf(&b, "  (literal %s)\n", sbString(dev))
	}
	b.WriteString("  (regex #\"^/dev/ttys[0-9]+$\") (subpath \"/dev/fd\"))\n")
	if prot := pol.Protected(); len(prot) > 0 {
		b.WriteString("(deny file-write*")
		for _, p := range prot {
			fmt.Fprintf(&b, " (subpath %s)", sbString(p))
		}
		b.WriteString(")\n")
	}
	if len(pol.DenyRead) > 0 {
		b.WriteString("(deny file-read*")
		for _, p := range pol.DenyRead {
			fmt.Fprintf(&b, " (subpath %s)", sbString(p))
		}
		b.WriteString(")\n")
	}
	if !pol.Network {
		b.WriteString("(deny network-outbound)\n")
		if proxyPort > 0 {
			fmt.Fprintf(&b, "(allow network-outbound (remote tcp \"localhost:%d\"))\n", proxyPort)
		}
	}
	return b.String()
}

// sbString quotes s as a profile's string.
func sbString(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}
