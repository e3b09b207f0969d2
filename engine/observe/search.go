package observe

import (
	"strings"
	"unicode"
)

// TextQuery is a text search over the visible text of every frame.
type TextQuery struct {
	Text string `json:"text"`
	// Frame restricts the search to one frame ("" for all).
	Frame string `json:"frame,omitempty"`
}

// Snippet is a bounded piece of text around one match.
type Snippet struct {
	Frame string `json:"frame"`
	Text  string `json:"text"`
	// Offset is the match's position in the frame's text, in characters.
	Offset int `json:"offset"`
}

// TextResult is a text search's answer (OBS-6): bounded snippets, the true
// number of matches, whether snippets were left out, and whether the search
// covered the whole page (OBS-7: no match in an incomplete read proves
// nothing).
type TextResult struct {
	Query         string    `json:"query"`
	Snippets      []Snippet `json:"snippets"`
	TextMatched   int       `json:"textMatched"`
	TextTruncated bool      `json:"textTruncated"`
	Complete      bool      `json:"complete"`
}

// SearchText finds every case-insensitive occurrence of q.Text (white space
// normalised) in the frames' visible text. It returns at most
// lim.SnippetsMax snippets of at most lim.SnippetCharsMax characters each;
// TextMatched counts every match, and the search reads the whole text, not
// a bounded view of it.
func (o *Observation) SearchText(q TextQuery, lim Limits) TextResult {
	needle := []rune(strings.ToLower(Normalize(q.Text)))
	r := TextResult{Query: Normalize(q.Text), Snippets: []Snippet{}, Complete: o.Whole()}
	if len(needle) == 0 {
		return r
	}
	for _, ft := range o.texts {
		if q.Frame != "" && ft.frame != q.Frame {
			continue
		}
		// the frame text is normalised per line; lines join with "\n",
		// which a query's space matches
		hay := []rune(ft.text)
		low := make([]rune, len(hay))
		for i, c := range hay {
			if c == '\n' {
				c = ' '
			}
			low[i] = unicode.ToLower(c)
		}
		for i := 0; i+len(needle) <= len(low); {
			if !runesAt(low, needle, i) {
				i++
				continue
			}
			r.TextMatched++
			if len(r.Snippets) < lim.SnippetsMax {
				r.Snippets = append(r.Snippets, Snippet{Frame: ft.frame, Offset: i, Text: snippet(hay, i, len(needle), lim.SnippetCharsMax)})
			}
			i += len(needle)
		}
	}
	r.TextTruncated = r.TextMatched > len(r.Snippets)
	return r
}

func runesAt(hay, needle []rune, i int) bool {
	for k, c := range needle {
		if hay[i+k] != c {
			return false
		}
	}
	return true
}

// snippet cuts up to width characters around the match at i (the match
// itself is cut when it is longer than width).
func snippet(hay []rune, i, n, width int) string {
	if width <= 0 {
		return ""
	}
	if n >= width {
		return string(hay[i : i+width])
	}
	ctx := (width - n) / 2
	start := max(i-ctx, 0)
	end := min(start+width, len(hay))
	start = max(end-width, 0)
	s := strings.ReplaceAll(string(hay[start:end]), "\n", " ")
	return s
}

// HasText reports whether the visible text of the page (every frame's,
// joined by line breaks, white space normalised) contains s normalised:
// the whole text is read, as a wait needs, without building a view.
func (o *Observation) HasText(s string) bool {
	texts := make([]string, len(o.texts))
	for i, ft := range o.texts {
		texts[i] = ft.text
	}
	return strings.Contains(Normalize(strings.Join(texts, "\n")), Normalize(s))
}
