package monitor

import (
	"strings"
	"unicode"
)

// ControlInfo is what the engine knows about a control's markup, for
// IsSensitive.
type ControlInfo struct {
	Type         string // input type attribute
	Autocomplete string // autocomplete attribute
	Name         string // name attribute
	ID           string // id attribute
	Label        string // accessible name or label text
	Placeholder  string
}

// SensitiveAutocomplete are autocomplete tokens that make a control
// sensitive.
var SensitiveAutocomplete = []string{"current-password", "new-password", "one-time-code"}

// SensitiveAutocompletePrefix makes every autocomplete token that starts with
// it (cc-number, cc-csc, cc-exp, cc-name, …) sensitive: all card fields.
const SensitiveAutocompletePrefix = "cc-"

// SensitiveWords are words that, found among the words of a control's name,
// id, label or placeholder, make it sensitive.
var SensitiveWords = []string{
	"otp", "totp", "hotp", "2fa", "mfa", "pin",
	"cvc", "cvv", "csc", "cvn",
	"pwd", "passwd", "password", "passcode", "passphrase",
}

// SensitivePhrases are word sequences that make a control sensitive.
var SensitivePhrases = []string{
	"one time", "verification code", "security code", "auth code", "authentication code",
	"card number", "credit card", "debit card", "card holder", "name on card",
	"card expiry", "card expiration", "expiry date", "expiration date",
}

// SensitiveSubstrings are substrings that make a control sensitive wherever
// they occur (they catch run-together ids such as "newpassword").
var SensitiveSubstrings = []string{
	"password", "passwd", "passcode", "onetime", "cardnumber", "creditcard",
	"cardholder", "securitycode", "verificationcode",
}

// sensitiveTextMax bounds how many bytes of each attribute IsSensitive reads.
const sensitiveTextMax = 512

// SensitiveName is what a summary says instead of a sensitive control's name.
const SensitiveName = "a sensitive field"

// IsSensitive reports whether a control's value and name must be kept out of
// anything the engine reports (password, one-time code and card fields). The
// exact rules are in the package doc.
func IsSensitive(c ControlInfo) bool {
	if strings.EqualFold(strings.TrimSpace(c.Type), "password") {
		return true
	}
	for _, tok := range strings.Fields(strings.ToLower(bounded(c.Autocomplete))) {
		if strings.HasPrefix(tok, SensitiveAutocompletePrefix) {
			return true
		}
		for _, s := range SensitiveAutocomplete {
			if tok == s {
				return true
			}
		}
	}
	for _, text := range [...]string{c.Name, c.ID, c.Label, c.Placeholder} {
		if sensitiveText(bounded(text)) {
			return true
		}
	}
	return false
}

func bounded(s string) string {
	if len(s) > sensitiveTextMax {
		return s[:sensitiveTextMax] // a rune cut in half decodes as U+FFFD
	}
	return s
}

// sensitiveText reports whether text matches a sensitive word, phrase or
// substring.
func sensitiveText(text string) bool {
	if text == "" {
		return false
	}
	lower := strings.ToLower(text)
	for _, s := range SensitiveSubstrings {
		if strings.Contains(lower, s) {
			return true
		}
	}
	words := " " + strings.Join(splitWords(text), " ") + " "
	for _, w := range SensitiveWords {
		if strings.Contains(words, " "+w+" ") {
			return true
		}
	}
	for _, p := range SensitivePhrases {
		if strings.Contains(words, " "+p+" ") {
			return true
		}
	}
	return false
}

// splitWords lower-cases s and splits it at non-alphanumerics and at
// camelCase humps: before a digit that follows a letter, before an
// upper-case letter that follows a lower-case one, and before the last
// upper-case letter of an acronym that is followed by a lower-case one.
// "oneTimeCode" → one time code, "card-number" → card number,
// "verify2FACode" → verify 2fa code, "cvv2" → cvv 2, "PINCode" → pin code.
func splitWords(s string) []string {
	rs := []rune(s)
	var words []string
	var cur []rune
	cut := func() {
		if len(cur) > 0 {
			words = append(words, string(cur))
			cur = cur[:0]
		}
	}
	for i, r := range rs {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			cut()
			continue
		}
		if i > 0 {
			prev := rs[i-1]
			nextLower := i+1 < len(rs) && unicode.IsLower(rs[i+1])
			switch {
			case unicode.IsDigit(r) && unicode.IsLetter(prev),
				unicode.IsUpper(r) && unicode.IsLower(prev),
				unicode.IsUpper(r) && unicode.IsUpper(prev) && nextLower:
				cut()
			}
		}
		cur = append(cur, unicode.ToLower(r))
	}
	cut()
	return words
}
