// Package monitor is the loop monitor (SPEC §5, MON-1..MON-9).
//
// The engine feeds it one call per page operation: [Monitor.Act] for what the
// agent did and [Monitor.Observe] for what the page looked like afterwards.
// When the recent history looks like a loop, the monitor raises a [Signal]
// that the engine attaches to the next result it returns ([Monitor.Pending]).
// The signal is advisory only (MON-8): the monitor never fails, blocks or
// finishes anything, and a signal is never a reason to resend a submission
// that completed or whose outcome is uncertain.
//
// The package is pure Go: no I/O, no goroutines, no imports of other project
// packages. Every window is a fixed-size ring and every loop is bounded by a
// window or by the size of its input.
//
// # Two windows (MON-1)
//
// The monitor keeps the fingerprints of the last [Config.Window] non-passive
// actions and, separately, of the last [Config.Window] observations.
//
// # Observation fingerprint (MON-2)
//
// [Fingerprint] is the hex sha256 of an unambiguous encoding (each field
// tagged and terminated, separator bytes escaped) of, in order:
//
//   - Tab, URL and FrameScope, verbatim;
//   - every text in Texts, in page order;
//   - every table cell, row by row, in page order;
//   - every media element's Kind and Ready;
//   - every control's Role, Name, Value, Checked, Expanded and Disabled, in
//     page order.
//
// It ignores SnapshotID (a new snapshot id is not progress) and Control.Key
// (the key is used by [Summarize] only, so a page whose keys are regenerated
// still fingerprints the same).
//
// Volatile DOM: in texts, table cells and control names every number is
// replaced by one number marker before hashing (the marker cannot collide
// with a literal character). A number is a run of ASCII digits,
// possibly joined by single '.', ',', ':', '/' or '-' characters followed by
// another digit, so "3 new", "12:03:45", "2024-01-31" and "1,234.50" each
// become one marker. This is what makes a menu that shows a counter or a
// timestamp fingerprint the same every time it is open (MON-5), while pages
// that differ in their words, controls, URL or tab stay distinct. Tab, URL,
// FrameScope and control values are not normalised: a different URL is a
// different page, and a value the agent typed is real state. The known cost:
// two states that differ only in their numbers (a table of figures paged in
// place, without a URL change) are treated as the same state.
//
// A sensitive control (Control.Sensitive) contributes only whether its value
// is empty, never the value itself.
//
// # Action fingerprint (MON-3)
//
// [ActionFingerprint] hashes Op, Tab, Role, Name, Key and the sha256 of Value
// exactly as typed (no case folding). Role and Name are the ones the engine
// read from the latest observation that holds the target ref; the ref itself
// is never part of an action. The fingerprint is for comparison only: it is
// never a ref for the next action, and no signal carries it.
//
// # Rules (MON-4)
//
// With the defaults in [DefaultConfig]:
//
//   - (a) [RuleSameActionRevisit]: the same action fingerprint occurs ≥ 5 times
//     in the action window and the observation window holds ≥ 3 revisits.
//     An observation is a revisit when it differs from the previous
//     observation of the same tab and equals an earlier observation in the
//     window. Staying on one state is stagnation, not a revisit, and
//     switching between tabs is reading, not going back (MON-6).
//   - (b) [RuleStagnation]: ≥ 5 consecutive non-passive actions after which
//     the observation fingerprint did not change. An observation that
//     changes, even after passive operations only, resets the count.
//   - (c) [RuleSameActionNoObservation]: the same action occurs ≥ 5 times
//     with no observation in between.
//
// Rules (a) and (c) are checked on every non-passive action; rules (a) and
// (b) on the first observation after one or more non-passive actions. An
// observation that follows passive operations only never triggers a rule.
// When several rules hold, the signal names the first of (a), (c), (b); its
// counts are always all filled in. A rule that keeps holding raises a fresh
// signal on every further offending operation.
//
// # Passive operations (MON-6)
//
// An action is passive when Action.Passive is set or its Op is in
// [PassiveOps] (waitFor, verifyOutcome, verifyField). Passive actions are not
// recorded and never trigger a rule. The engine should also mark other
// read-only operations (observe, screenshot, read text) passive.
//
// # No leaks (MON-7)
//
// A [Signal] carries the rule, counts and a fixed advice text. It carries no
// typed text, no names, no fingerprints and no refs, so it cannot leak the
// name of a sensitive control.
//
// # Sensitive controls
//
// [IsSensitive] reports whether a control's value and name must be kept out
// of anything the engine reports. A control is sensitive when any of these
// holds:
//
//   - its Type is "password" (case-insensitive);
//   - a token of its Autocomplete is current-password, new-password,
//     one-time-code, or starts with "cc-" (cc-number, cc-csc, cc-exp,
//     cc-exp-month, cc-exp-year, cc-name, cc-type, …);
//   - its Name, ID, Label or Placeholder, lower-cased and split into words at
//     non-alphanumerics, at camelCase humps and before a digit that follows
//     a letter ("verify2FACode" → verify 2fa code), contains one of the words
//     otp, totp, hotp, 2fa, mfa, pin, cvc, cvv, csc, cvn, pwd,
//     passwd, password, passcode, passphrase, or one of the phrases
//     "one time", "verification code", "security code", "auth code",
//     "authentication code", "card number", "credit card", "debit card",
//     "card holder", "name on card", "card expiry", "card expiration",
//     "expiry date", "expiration date";
//   - or, lower-cased, contains one of the substrings password, passwd,
//     passcode, onetime, cardnumber, creditcard, cardholder, securitycode,
//     verificationcode (this catches run-together ids like "newpassword").
//
// The same lists are exported as [SensitiveAutocomplete],
// [SensitiveAutocompletePrefix], [SensitiveWords], [SensitivePhrases] and
// [SensitiveSubstrings]. Only English patterns are covered.
//
// # Change summary (MON-9)
//
// [Summarize] compares two observations and lists the controls added,
// removed and changed (matched by Control.Key) with their role and name, and
// counts the texts added and removed. It names sensitive controls only as
// "a sensitive field" and never includes values. The summary grants no ref:
// it carries no snapshot refs and no keys, so the agent must re-observe
// before acting on anything it mentions.
package monitor
