package toolcall

// RecallScopeSession is Recall's default scope, the session's own records:
// a call in that scope need not name it.
const RecallScopeSession = "session"

// RecallCall is the Recall call that opens ref in scope, as the model
// would write its arguments ("Recall ref=1a2b scope=project").
func RecallCall(ref, scope string) string {
	call := Recall + " ref=" + ref
	if scope != "" && scope != RecallScopeSession {
		call += " scope=" + scope
	}
	return call
}

// RecallWhole is what a text cut short tells the model about its whole:
// the Recall call that reads it, a part at a time. scope is "" for the
// session's own records. Everything that promises the model a whole text
// "through Recall" words it so, the context manager's cuts and a long
// Task answer alike, so the promise and the tool agree.
func RecallWhole(ref, scope string) string {
	return "[cut: " + RecallCall(ref, scope) + " reads the whole text, a part at a time (offset=N for the part from byte N)]"
}
