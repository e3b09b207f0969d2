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
}

// Role returns the element's role: the explicit role attribute when it names
// a known role, else the implicit role per HTML-AAM, else "".
func Role(n *html.Node) string {
	if n == nil || n.Type != html.ElementNode {
		return ""
	}
	for _, tok := range strings.Fields(strings.ToLower(attr(n, "role"))) {
		if knownRoles[tok] {
			if tok == "none" {
				return "presentation"
			}
			return tok
		}
	}
	return implicitRole(n)
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
		return "button"
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
		if hasAttr(n, "alt") && attr(n, "alt") == "" {
			return "presentation"
		}
		return "img"
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
		return "cell"
	case atom.Th:
		if strings.EqualFold(attr(n, "scope"), "row") {
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
		return "form"
	case atom.Article:
		return "article"
	case atom.Figure:
		return "figure"
	case atom.Progress:
		return "progressbar"
	case atom.Hr:
		return "separator"
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
	case "hidden", "file", "color", "date", "datetime-local", "month", "time", "week":
		return ""
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

// editorRoles are the roles that take typed text; they come first in a
// snapshot (OBS-2).
var editorRoles = map[string]bool{"textbox": true, "searchbox": true, "combobox": true, "spinbutton": true, "slider": true}

// inputRoles are selectable inputs, second in priority after editors.
var inputRoles = map[string]bool{"checkbox": true, "radio": true, "switch": true, "listbox": true, "option": true}

// candidateRoles are the roles an agent can act on (OBS-1).
var candidateRoles = map[string]bool{
	"link": true, "button": true, "textbox": true, "searchbox": true, "combobox": true,
	"checkbox": true, "radio": true, "switch": true, "tab": true, "menuitem": true,
	"menuitemcheckbox": true, "menuitemradio": true, "option": true, "listbox": true,
	"slider": true, "spinbutton": true, "treeitem": true,
}

// IsEditor reports whether role takes typed text.
func IsEditor(role string) bool { return editorRoles[role] }
