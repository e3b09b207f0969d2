package lsp

import "encoding/json"

// The part of the LSP 3.17 protocol the server speaks, with the
// specification's names. Positions are zero-based lines and UTF-16 code
// unit columns (the protocol's default encoding; see position.go).

// Position is a place in a document.
type Position struct {
	Line      int `json:"line"`
	Character int `json:"character"`
}

// Range is a span of a document, End exclusive.
type Range struct {
	Start Position `json:"start"`
	End   Position `json:"end"`
}

// Location is a range in a file.
type Location struct {
	URI   string `json:"uri"`
	Range Range  `json:"range"`
}

// TextDocumentIdentifier names an open document.
type TextDocumentIdentifier struct {
	URI string `json:"uri"`
}

// TextDocumentItem is a document as opened.
type TextDocumentItem struct {
	URI        string `json:"uri"`
	LanguageID string `json:"languageId"`
	Version    int    `json:"version"`
	Text       string `json:"text"`
}

// TextDocumentPositionParams is the argument of completion, hover and
// definition.
type TextDocumentPositionParams struct {
	TextDocument TextDocumentIdentifier `json:"textDocument"`
	Position     Position               `json:"position"`
}

// InitializeParams is what the client says about itself at start.
type InitializeParams struct {
	ProcessID        *int              `json:"processId"`
	RootURI          string            `json:"rootUri,omitempty"`
	RootPath         string            `json:"rootPath,omitempty"`
	WorkspaceFolders []WorkspaceFolder `json:"workspaceFolders,omitempty"`
	Capabilities     struct {
		Workspace struct {
			DidChangeWatchedFiles struct {
				DynamicRegistration bool `json:"dynamicRegistration"`
			} `json:"didChangeWatchedFiles"`
		} `json:"workspace"`
	} `json:"capabilities"`
	ClientInfo *struct {
		Name    string `json:"name"`
		Version string `json:"version,omitempty"`
	} `json:"clientInfo,omitempty"`
}

// WorkspaceFolder is one folder the client has open.
type WorkspaceFolder struct {
	URI  string `json:"uri"`
	Name string `json:"name"`
}

// InitializeResult answers initialize.
type InitializeResult struct {
	Capabilities ServerCapabilities `json:"capabilities"`
	ServerInfo   ServerInfo         `json:"serverInfo"`
}

// ServerInfo names the server.
type ServerInfo struct {
	Name    string `json:"name"`
	Version string `json:"version,omitempty"`
}

// ServerCapabilities says what the server answers.
type ServerCapabilities struct {
	PositionEncoding       string                `json:"positionEncoding"`
	TextDocumentSync       TextDocumentSync      `json:"textDocumentSync"`
	CompletionProvider     CompletionOptions     `json:"completionProvider"`
	HoverProvider          bool                  `json:"hoverProvider"`
	DefinitionProvider     bool                  `json:"definitionProvider"`
	DocumentSymbolProvider bool                  `json:"documentSymbolProvider"`
	CodeActionProvider     CodeActionOptions     `json:"codeActionProvider"`
	ExecuteCommandProvider ExecuteCommandOptions `json:"executeCommandProvider"`
	Workspace              ServerWorkspace       `json:"workspace"`
}

// ServerWorkspace is what the server supports of the workspace.
type ServerWorkspace struct {
	WorkspaceFolders struct {
		Supported bool `json:"supported"`
	} `json:"workspaceFolders"`
}

// TextDocumentSync: the server takes whole documents on every change
// (TextDocumentSyncKind Full) and wants to hear of saves.
type TextDocumentSync struct {
	OpenClose bool `json:"openClose"`
	Change    int  `json:"change"`
	Save      bool `json:"save"`
}

// Text document sync kinds.
const (
	SyncFull        = 1
	SyncIncremental = 2
)

// CompletionOptions: completion is offered at these characters too.
type CompletionOptions struct {
	TriggerCharacters []string `json:"triggerCharacters"`
	ResolveProvider   bool     `json:"resolveProvider"`
}

// CodeActionOptions lists the kinds of code action offered.
type CodeActionOptions struct {
	CodeActionKinds []string `json:"codeActionKinds"`
}

// ExecuteCommandOptions lists the commands the server runs.
type ExecuteCommandOptions struct {
	Commands []string `json:"commands"`
}

// DidOpenTextDocumentParams is textDocument/didOpen.
type DidOpenTextDocumentParams struct {
	TextDocument TextDocumentItem `json:"textDocument"`
}

// DidChangeTextDocumentParams is textDocument/didChange.
type DidChangeTextDocumentParams struct {
	TextDocument struct {
		URI     string `json:"uri"`
		Version int    `json:"version"`
	} `json:"textDocument"`
	ContentChanges []TextDocumentContentChangeEvent `json:"contentChanges"`
}

// TextDocumentContentChangeEvent is one change: the whole text (no
// Range) or the text that replaces Range.
type TextDocumentContentChangeEvent struct {
	Range *Range `json:"range,omitempty"`
	Text  string `json:"text"`
}

// DidCloseTextDocumentParams is textDocument/didClose.
type DidCloseTextDocumentParams struct {
	TextDocument TextDocumentIdentifier `json:"textDocument"`
}

// DidSaveTextDocumentParams is textDocument/didSave.
type DidSaveTextDocumentParams struct {
	TextDocument TextDocumentIdentifier `json:"textDocument"`
}

// Diagnostic severities.
const (
	SeverityError       = 1
	SeverityWarning     = 2
	SeverityInformation = 3
	SeverityHint        = 4
)

// Diagnostic is one problem in a document.
type Diagnostic struct {
	Range    Range  `json:"range"`
	Severity int    `json:"severity"`
	Code     string `json:"code"`
	Source   string `json:"source"`
	Message  string `json:"message"`
	// Data carries what the code actions of the diagnostic need.
	Data *DiagnosticData `json:"data,omitempty"`
}

// DiagnosticData is the server's own part of a diagnostic, sent back by
// the client in textDocument/codeAction.
type DiagnosticData struct {
	// Command is the command line that fixes the problem (a recording
	// or a golden missing or stale).
	Command []string `json:"command,omitempty"`
	// Replacements are step texts that would replace an undefined step's
	// text, closest first.
	Replacements []string `json:"replacements,omitempty"`
}

// PublishDiagnosticsParams is textDocument/publishDiagnostics.
type PublishDiagnosticsParams struct {
	URI         string       `json:"uri"`
	Version     *int         `json:"version,omitempty"`
	Diagnostics []Diagnostic `json:"diagnostics"`
}

// CompletionList answers textDocument/completion.
type CompletionList struct {
	IsIncomplete bool             `json:"isIncomplete"`
	Items        []CompletionItem `json:"items"`
}

// Completion item kinds and insert text formats used.
const (
	CompletionKindText      = 1
	CompletionKindFunction  = 3
	CompletionKindKeyword   = 14
	CompletionKindSnippet   = 15
	CompletionKindReference = 18
	InsertPlainText         = 1
	InsertSnippet           = 2
	InsertModeAsIs          = 1
)

// CompletionItem is one completion.
type CompletionItem struct {
	Label            string         `json:"label"`
	Kind             int            `json:"kind,omitempty"`
	Detail           string         `json:"detail,omitempty"`
	Documentation    *MarkupContent `json:"documentation,omitempty"`
	SortText         string         `json:"sortText,omitempty"`
	FilterText       string         `json:"filterText,omitempty"`
	InsertTextFormat int            `json:"insertTextFormat,omitempty"`
	InsertTextMode   int            `json:"insertTextMode,omitempty"`
	TextEdit         *TextEdit      `json:"textEdit,omitempty"`
}

// TextEdit replaces Range by NewText.
type TextEdit struct {
	Range   Range  `json:"range"`
	NewText string `json:"newText"`
}

// MarkupContent is Markdown shown to the user.
type MarkupContent struct {
	Kind  string `json:"kind"`
	Value string `json:"value"`
}

// Hover answers textDocument/hover.
type Hover struct {
	Contents MarkupContent `json:"contents"`
	Range    *Range        `json:"range,omitempty"`
}

// Symbol kinds used for the outline.
const (
	SymbolModule    = 2
	SymbolNamespace = 3
	SymbolClass     = 5
	SymbolMethod    = 6
	SymbolFunction  = 12
	SymbolArray     = 18
	SymbolEvent     = 24
)

// DocumentSymbol is one entry of a document's outline.
type DocumentSymbol struct {
	Name           string           `json:"name"`
	Detail         string           `json:"detail,omitempty"`
	Kind           int              `json:"kind"`
	Range          Range            `json:"range"`
	SelectionRange Range            `json:"selectionRange"`
	Children       []DocumentSymbol `json:"children,omitempty"`
}

// DocumentSymbolParams is textDocument/documentSymbol.
type DocumentSymbolParams struct {
	TextDocument TextDocumentIdentifier `json:"textDocument"`
}

// CodeActionParams is textDocument/codeAction.
type CodeActionParams struct {
	TextDocument TextDocumentIdentifier `json:"textDocument"`
	Range        Range                  `json:"range"`
	Context      struct {
		Diagnostics []Diagnostic `json:"diagnostics"`
	} `json:"context"`
}

// CodeAction is a fix offered for diagnostics.
type CodeAction struct {
	Title       string         `json:"title"`
	Kind        string         `json:"kind"`
	Diagnostics []Diagnostic   `json:"diagnostics,omitempty"`
	IsPreferred bool           `json:"isPreferred,omitempty"`
	Edit        *WorkspaceEdit `json:"edit,omitempty"`
	Command     *Command       `json:"command,omitempty"`
}

// WorkspaceEdit changes documents.
type WorkspaceEdit struct {
	Changes map[string][]TextEdit `json:"changes"`
}

// Command is a command the server runs (workspace/executeCommand).
type Command struct {
	Title     string            `json:"title"`
	Command   string            `json:"command"`
	Arguments []json.RawMessage `json:"arguments,omitempty"`
}

// ExecuteCommandParams is workspace/executeCommand.
type ExecuteCommandParams struct {
	Command   string            `json:"command"`
	Arguments []json.RawMessage `json:"arguments,omitempty"`
}

// ShowMessageParams is window/showMessage.
type ShowMessageParams struct {
	Type    int    `json:"type"`
	Message string `json:"message"`
}

// Message types of window/showMessage and window/logMessage.
const (
	MessageError   = 1
	MessageWarning = 2
	MessageInfo    = 3
	MessageLog     = 4
)
