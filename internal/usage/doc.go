// Package usage is `clawdcode usage` (CONTRACT.md section 17) and the
// figures /cost and the REPL's status line show: the tokens of every
// stored session's model calls — input, the part of it served from the
// server's cache, output — and what they cost at the price list in force
// (tokens.Prices: the user's [prices] over the built-in table), grouped by
// day, month, session or model.
//
// It reads no session file a summary already covers: each session's
// usage comes from its index entry (storage.Project.Usage), kept in step
// by the store as records are appended, by UTC hour and model. A report
// turns hours into the days of its time zone, prices each model's tokens
// at that model's price (cached input apart), counts a subagent's session
// under its parent's and apart, and the summary calls of compactions
// apart. A model without a price (a local server's) is counted at $0 and
// named, so that the user can state its price.
//
// Cost is the one pricing rule: `usage`, /cost and the status line all
// call it.
package usage
