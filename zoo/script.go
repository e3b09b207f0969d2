package zoo

import (
	"fmt"
	"strings"
)

// Answer is the scripted reply to a message.
type Answer struct {
	// Parts are the streamed pieces, in order; their concatenation is Text.
	Parts []string
	// Text is the whole answer.
	Text string
	// Long answers stream for Options.LongStreamMS, long enough to stop.
	Long bool
	// Err, when set, is the error the backend answers instead.
	Err string
}

// ErrorText is the scripted failure's message.
const ErrorText = "The model is overloaded. Please try again later."

// Script answers a sent message deterministically. A message with "error"
// fails with ErrorText; one with "long" gets a long answer that can be
// stopped; variant > 0 (a regenerated answer) gets another wording.
func Script(message string, variant int) Answer {
	m := strings.ToLower(message)
	var text string
	long := false
	switch {
	case strings.Contains(m, "error"):
		return Answer{Err: ErrorText}
	case strings.Contains(m, "long"):
		long = true
		text = "Here is a long story. Once upon a time a lighthouse keeper counted the waves, " +
			"one by one, every night, and wrote each number in a little blue book, " +
			"until the book was full and the sea was calm and the keeper finally slept."
	case strings.Contains(m, "capital of france"):
		text = "The capital of France is Paris, on the Seine."
	case strings.Contains(m, "2 + 2") || strings.Contains(m, "2+2"):
		text = "2 + 2 equals 4."
	default:
		text = fmt.Sprintf("You said: %s. That is all I know.", strings.TrimSpace(message))
	}
	if variant > 0 {
		text = fmt.Sprintf("Put another way (take %d): %s", variant+1, text)
	}
	return Answer{Parts: split(text), Text: text, Long: long}
}

// split cuts text into parts of about three words, keeping the spaces, so
// the parts join back into text exactly.
func split(text string) []string {
	words := strings.SplitAfter(text, " ")
	var parts []string
	for i := 0; i < len(words); i += 3 {
		parts = append(parts, strings.Join(words[i:min(i+3, len(words))], ""))
	}
	return parts
}
