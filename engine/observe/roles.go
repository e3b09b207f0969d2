package observe

import (
	"strconv"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// knownRoles are the ARIA roles an explicit role attribute may name; the
// first recognised token of the attribute wins, as WAI-ARIA specifies.
var knownRoles = map[string]bool{
	"alert": true, "alertdialog": true, "application": true, "article": true, "banner": true,
	"button": true, "cell": true, "checkbox": true, "columnheader": true, "combobox": true,
	"complementary": true, "contentinfo": true, "dialog": true, "document": true, "feed": true,
	"figure": true, "form": true, "grid": true, "gridcell": true, "group": true, "heading": true,
	"img": true, "link": true, "list": true, "listbox": true, "listitem": true, "log": true,
	"main": true, "menu": true, "menubar": true, "menuitem": true, "menuitemcheckbox": true,
	"menuitemradio": true, "navigation": true, "none": true, "note": true, "option": true,
	"presentation": true, "progressbar": true, "radio": true, "radiogroup": true, "region": true,
	"row": true, "rowgroup": true, "rowheader": true, "search": true, "searchbox": true,
	"separator": true, "slider": true, "spinbutton": true, "status": true, "switch": true,
	"tab": true, "table": true, "tablist": true, "tabpanel": true, "textbox": true,
	"toolbar": true, "tooltip": true, "tree": true, "treegrid": true, "treeitem": true,
	"blockquote": true, "caption": true, "code": true, "definition": true, "deletion": true,
	"directory": true, "emphasis": true, "generic": true, "insertion": true, "mark": true,
	"marquee": true, "math": true, "meter": true, "paragraph": true, "scrollbar": true,
	"strong": true, "subscript": true, "superscript": true, "term": true, "time": true,
	"timer": true,
}

// globalARIA are the global states and properties whose presence makes a
// user agent ignore role=presentation/none (WAI-ARIA presentational role
// conflict resolution).
var globalARIA = []string{"aria-atomic", "aria-busy", "aria-controls", "aria-current", "aria-describedby",
	"aria-details", "aria-dropeffect", "aria-flowto", "aria-grabbed", "aria-hidden", "aria-keyshortcuts",
	"aria-label", "aria-labelledby", "aria-live", "aria-owns", "aria-relevant", "aria-roledescription"}

// Role returns the element's role: the explicit role attribute when it names
// a known role, else the implicit role per HTML-AAM, else "".
func Role(n *html.Node) string {
	if n == nil || n.Type != html.ElementNode {
		return ""
	}
	for _, tok := range strings.Fields(strings.ToLower(attr(n, "role"))) {
		if knownRoles[tok] {
			if tok == "none" || tok == "presentation" {
				if focusable(n) || hasGlobalARIA(n) {
					break // conflict resolution: the implicit role stands
				}
				return "presentation"
			}
			return tok
		}
	}
	return implicitRole(n)
}

func hasGlobalARIA(n *html.Node) bool {
	for _, a := range n.Attr {
		if strings.HasPrefix(a.Key, "aria-") {
			for _, g := range globalARIA {
				if a.Key == g {
					return true
				}
			}
		}
	}
	return false
}

// focusable reports natively focusable elements and those with a tabindex.
func focusable(n *html.Node) bool {
	if hasAttr(n, "tabindex") {
		return true
	}
	if hasAttr(n, "disabled") {
		return false
	}
	switch n.DataAtom {
	case atom.A, atom.Area:
		return hasAttr(n, "href")
	case atom.Button, atom.Select, atom.Textarea:
		return true
	case atom.Input:
		return !strings.EqualFold(attr(n, "type"), "hidden")
	}
	return isContentEditable(n)
}

// tableRoleOf is the role of the nearest table-like ancestor of a cell.
func tableRoleOf(n *html.Node) string {
	steps := 0
	for p := n.Parent; p != nil && steps < maxAncestors; p = p.Parent {
		steps++
		if p.Type == html.ElementNode && p.DataAtom == atom.Table {
			return Role(p)
		}
	}
	return ""
}

// scopedLandmark: header and footer are banner/contentinfo only when not
// inside sectioning content or a landmark-like element.
func scopedLandmark(n *html.Node, role string) string {
	steps := 0
	for p := n.Parent; p != nil && steps < maxAncestors; p = p.Parent {
		steps++
		if p.Type != html.ElementNode {
			continue
		}
		switch p.DataAtom {
		case atom.Article, atom.Aside, atom.Main, atom.Nav, atom.Section:
			return "generic"
		}
		switch attr(p, "role") {
		case "article", "complementary", "main", "navigation", "region":
			return "generic"
		}
	}
	return role
}

func implicitRole(n *html.Node) string {
	switch n.DataAtom {
	case atom.A, atom.Area:
		if hasAttr(n, "href") {
			return "link"
		}
		return ""
	case atom.Button:
		return "button"
	case atom.Summary:
		if p := n.Parent; p != nil && p.DataAtom == atom.Details && firstSummary(p) == n {
			return "button"
		}
		return ""
	case atom.Input:
		return inputRole(n)
	case atom.Textarea:
		return "textbox"
	case atom.Select:
		size, _ := strconv.Atoi(attr(n, "size"))
		if hasAttr(n, "multiple") || size > 1 {
			return "listbox"
		}
		return "combobox"
	case atom.Option:
		return "option"
	case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
		return "heading"
	case atom.Img:
		if hasAttr(n, "alt") && attr(n, "alt") == "" && !hasAttr(n, "title") && !hasGlobalARIA(n) && !focusable(n) {
			return "presentation"
		}
		return "img"
	case atom.Svg:
		return "img"
	case atom.Header:
		return scopedLandmark(n, "banner")
	case atom.Footer:
		return scopedLandmark(n, "contentinfo")
	case atom.Section:
		if hasAttr(n, "aria-label") || hasAttr(n, "aria-labelledby") || hasAttr(n, "title") {
			return "region"
		}
		return ""
	case atom.Fieldset, atom.Details, atom.Optgroup:
		return "group"
	case atom.P:
		return "paragraph"
	case atom.Output:
		return "status"
	case atom.Meter:
		return "meter"
	case atom.Caption:
		return "caption"
	case atom.Dd:
		return "definition"
	case atom.Dt, atom.Dfn:
		return "term"
	case atom.Blockquote:
		return "blockquote"
	case atom.Code:
		return "code"
	case atom.Em:
		return "emphasis"
	case atom.Strong:
		return "strong"
	case atom.Del:
		return "deletion"
	case atom.Ins:
		return "insertion"
	case atom.Mark:
		return "mark"
	case atom.Sub:
		return "subscript"
	case atom.Sup:
		return "superscript"
	case atom.Time:
		return "time"
	case atom.Math:
		return "math"
	case atom.Html:
		return "document"
	case atom.Nav:
		return "navigation"
	case atom.Main:
		return "main"
	case atom.Aside:
		return "complementary"
	case atom.Table:
		return "table"
	case atom.Tr:
		return "row"
	case atom.Td:
		switch tableRoleOf(n) {
		case "grid", "treegrid":
			return "gridcell"
		case "table":
			return "cell"
		}
		return ""
	case atom.Th:
		switch tableRoleOf(n) {
		case "table", "grid", "treegrid":
		default:
			return ""
		}
		if s := strings.ToLower(attr(n, "scope")); s == "row" || s == "rowgroup" {
			return "rowheader"
		}
		return "columnheader"
	case atom.Thead, atom.Tbody, atom.Tfoot:
		return "rowgroup"
	case atom.Ul, atom.Ol, atom.Menu:
		return "list"
	case atom.Li:
		return "listitem"
	case atom.Dialog:
		return "dialog"
	case atom.Form:
		if hasAttr(n, "aria-label") || hasAttr(n, "aria-labelledby") || hasAttr(n, "title") {
			return "form"
		}
		return ""
	case atom.Article:
		return "article"
	case atom.Figure:
		return "figure"
	case atom.Progress:
		return "progressbar"
	case atom.Hr:
		return "separator"
	}
	if n.Data == "search" {
		return "search"
	}
	if isContentEditable(n) {
		return "textbox"
	}
	return ""
}

func inputRole(n *html.Node) string {
	typ := strings.ToLower(strings.TrimSpace(attr(n, "type")))
	hasList := hasAttr(n, "list")
	switch typ {
	case "button", "submit", "reset", "image":
		return "button"
	case "checkbox":
		return "checkbox"
	case "radio":
		return "radio"
	case "range":
		return "slider"
	case "number":
		return "spinbutton"
	case "search":
		if hasList {
			return "combobox"
		}
		return "searchbox"
	case "hidden":
		return ""
	case "file", "color", "date", "datetime-local", "month", "time", "week":
		return "" // no ARIA role; not a text editor
	case "", "text", "email", "tel", "url", "password":
		if hasList && typ != "password" {
			return "combobox"
		}
		return "textbox"
	}
	return "textbox"
}

func isContentEditable(n *html.Node) bool {
	if !hasAttr(n, "contenteditable") {
		return false
	}
	v := strings.ToLower(strings.TrimSpace(attr(n, "contenteditable")))
	return v == "" || v == "true" || v == "plaintext-only"
}

// The role sets below are switches, not maps: they are asked about every
// visible element, and a switch on a string costs a few comparisons where
// a map costs a hash.

// isEditorRole: the roles that take typed text; they come first in a
// snapshot (OBS-2).
func isEditorRole(role string) bool {
	switch role {
	case "textbox", "searchbox", "combobox", "spinbutton", "slider":
		return true
	}
	return false
}

// isInputRole: selectable inputs, second in priority after editors.
func isInputRole(role string) bool {
	switch role {
	case "checkbox", "radio", "switch", "listbox", "option":
		return true
	}
	return false
}

// isCandidateRole: the roles an agent can act on (OBS-1).
func isCandidateRole(role string) bool {
	switch role {
	case "link", "button", "textbox", "searchbox", "combobox",
		"checkbox", "radio", "switch", "tab", "menuitem",
		"menuitemcheckbox", "menuitemradio", "option", "listbox",
		"slider", "spinbutton", "treeitem":
		return true
	}
	return false
}

// IsEditor reports whether role takes typed text.
func IsEditor(role string) bool { return isEditorRole(role) }
