package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
)

// Options configure a server.
type Options struct {
	// Root holds features/ and recordings/. Empty: the nearest directory
	// at or above the client's workspace folder (or the current
	// directory) that has features/, as `run` finds it.
	Root string
	// Vocabulary is the step catalogue (required).
	Vocabulary Vocabulary
	// VocabularyOf, when set, is the catalogue of the root the server
	// found: it replaces Vocabulary once initialize knows the root (a QA
	// project's catalogue holds no self-test step, replaylab's own does).
	VocabularyOf func(root string) Vocabulary
	// Recordings tells each scenario's recording state; nil: no
	// recording diagnostics.
	Recordings Recordings
	// Checks reports the dry run's other problems (ambiguous steps,
	// arguments, site profiles and adapter files); nil: none.
	Checks Checks
	// SourceDirs are where a step's relative File is looked for, after
	// Root: the module root the catalogue was built from.
	SourceDirs []string
	// Command is how fixing commands spell the harness (default
	// DefaultCommand): the words before the flags.
	Command []string
	// Exec runs a fixing command (workspace/executeCommand) in dir and
	// returns its combined output; nil: commands are offered but not run
	// by the server.
	Exec func(ctx context.Context, dir string, args []string) ([]byte, error)
	// Log receives the server's own log lines; nil: none.
	Log io.Writer
}

// DefaultCommand is how fixing commands spell the harness when
// Options.Command is empty.
var DefaultCommand = []string{"replaylab", "run"}

// Name and version the server reports.
const (
	ServerName    = "replaylab-lsp"
	ServerVersion = "1"
	// Source is the diagnostics' source.
	Source = "replaylab"
	// CommandRun is the server's one command: run the words of its
	// argument (a fixing command) in the project root.
	CommandRun = "replaylab.run"
)

// Errors of Serve.
var (
	// ErrNoShutdown: the stream ended, or exit came, before shutdown
	// (the process should exit 1, as the protocol says).
	ErrNoShutdown = errors.New("lsp: the client left without shutdown")
	// ErrNoVocabulary: Options.Vocabulary is nil.
	ErrNoVocabulary = errors.New("lsp: no vocabulary")
)

// Server is one language server session. Its methods run on the one
// goroutine of Serve; the request handlers are also called directly by
// tests and benchmarks.
type Server struct {
	opt   Options
	conn  *Conn
	m     *matcher
	root  string
	docs  map[string]*document // open documents by URI
	disk  map[string]*document // the feature files under root/features by URI
	watch bool                 // the client registers file watchers when asked
	state bool                 // initialize answered
	down  bool                 // shutdown answered
	// jobs carries the ends of commands running in the background
	// (workspace/executeCommand) back to Serve's goroutine; stop closes
	// when Serve returns.
	jobs chan func() error
	stop chan struct{}
}

// NewServer returns a server over conn (nil: a server whose handlers are
// called directly).
func NewServer(opt Options, conn *Conn) (*Server, error) {
	if opt.Vocabulary == nil {
		return nil, ErrNoVocabulary
	}
	m, err := newMatcher(opt.Vocabulary.Steps())
	if err != nil {
		return nil, fmt.Errorf("lsp: catalogue: %w", err)
	}
	if len(opt.Command) == 0 {
		opt.Command = DefaultCommand
	}
	return &Server{opt: opt, conn: conn, m: m, docs: map[string]*document{}, disk: map[string]*document{}}, nil
}

// Serve answers the client on r and w until exit (nil after shutdown,
// ErrNoShutdown without), the end of r (ErrNoShutdown) or ctx's end.
func Serve(ctx context.Context, r io.Reader, w io.Writer, opt Options) error {
	conn := NewConn(r, w)
	s, err := NewServer(opt, conn)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx) // ends the commands still running
	defer cancel()
	type read struct {
		m   *message
		err error
	}
	msgs := make(chan read)
	stop := make(chan struct{})
	defer close(stop)
	s.jobs, s.stop = make(chan func() error), stop
	go func() {
		for {
			m, err := conn.read()
			select {
			case msgs <- read{m, err}:
			case <-stop:
				return
			}
			if err != nil && !isParseError(err) {
				return
			}
		}
	}()
	for {
		var rd read
		select {
		case <-ctx.Done():
			return ctx.Err()
		case job := <-s.jobs:
			if err := job(); err != nil {
				return err
			}
			continue
		case rd = <-msgs:
		}
		if rd.err != nil {
			if isParseError(rd.err) {
				var re *ResponseError
				errors.As(rd.err, &re)
				_ = conn.reply(json.RawMessage("null"), nil, re)
				continue
			}
			if errors.Is(rd.err, io.EOF) {
				if s.down {
					return nil
				}
				return ErrNoShutdown
			}
			return rd.err
		}
		if rd.m.Method == "exit" {
			if s.down {
				return nil
			}
			return ErrNoShutdown
		}
		if err := s.handle(ctx, rd.m); err != nil {
			return err
		}
	}
}

func isParseError(err error) bool {
	var re *ResponseError
	return errors.As(err, &re) && re.Code == CodeParseError
}

// handle answers one message; an error ends the session (the stream
// cannot be written).
func (s *Server) handle(ctx context.Context, m *message) error {
	if !m.isRequest() {
		if m.isNotification() {
			if s.state && !s.down {
				s.notification(m.Method, m.Params)
			}
		}
		return nil // a response: the server sends no requests it waits for
	}
	var result any
	var rerr *ResponseError
	switch {
	case m.Method == "initialize":
		result, rerr = s.initialize(m.Params)
	case !s.state:
		rerr = &ResponseError{Code: CodeServerNotInitialized, Message: "initialize first"}
	case s.down:
		rerr = &ResponseError{Code: CodeInvalidRequest, Message: "the server is shut down"}
	case m.Method == "shutdown":
		s.down = true
	case m.Method == "workspace/executeCommand" && s.jobs != nil:
		var p ExecuteCommandParams
		if err := json.Unmarshal(m.Params, &p); err != nil {
			rerr = invalidParams(err)
			break
		}
		if rerr = s.startCommand(ctx, m.ID, p); rerr == nil {
			return nil // answered when the command ends
		}
	default:
		result, rerr = s.request(ctx, m.Method, m.Params)
	}
	return s.conn.reply(m.ID, result, rerr)
}

func invalidParams(err error) *ResponseError {
	return &ResponseError{Code: CodeInvalidParams, Message: err.Error()}
}

// request answers the requests of an initialized session.
func (s *Server) request(ctx context.Context, method string, params json.RawMessage) (any, *ResponseError) {
	decode := func(v any) *ResponseError {
		if err := json.Unmarshal(params, v); err != nil {
			return invalidParams(err)
		}
		return nil
	}
	switch method {
	case "textDocument/completion":
		var p TextDocumentPositionParams
		if e := decode(&p); e != nil {
			return nil, e
		}
		return s.Completion(p), nil
	case "textDocument/hover":
		var p TextDocumentPositionParams
		if e := decode(&p); e != nil {
			return nil, e
		}
		if h := s.Hover(p); h != nil {
			return h, nil
		}
		return nil, nil
	case "textDocument/definition":
		var p TextDocumentPositionParams
		if e := decode(&p); e != nil {
			return nil, e
		}
		if l := s.Definition(p); l != nil {
			return l, nil
		}
		return nil, nil
	case "textDocument/documentSymbol":
		var p DocumentSymbolParams
		if e := decode(&p); e != nil {
			return nil, e
		}
		return s.Symbols(p.TextDocument.URI), nil
	case "textDocument/codeAction":
		var p CodeActionParams
		if e := decode(&p); e != nil {
			return nil, e
		}
		return s.CodeActions(p), nil
	case "workspace/executeCommand":
		var p ExecuteCommandParams
		if e := decode(&p); e != nil {
			return nil, e
		}
		return s.executeCommand(ctx, p)
	}
	return nil, &ResponseError{Code: CodeMethodNotFound, Message: "method not found: " + method}
}

// notification handles the notifications of an initialized session.
func (s *Server) notification(method string, params json.RawMessage) {
	switch method {
	case "textDocument/didOpen":
		var p DidOpenTextDocumentParams
		if json.Unmarshal(params, &p) == nil {
			s.Open(p.TextDocument.URI, p.TextDocument.Version, p.TextDocument.Text)
		}
	case "textDocument/didChange":
		var p DidChangeTextDocumentParams
		if json.Unmarshal(params, &p) == nil {
			s.Change(p)
		}
	case "textDocument/didSave":
		var p DidSaveTextDocumentParams
		if json.Unmarshal(params, &p) == nil {
			if d, ok := s.docs[p.TextDocument.URI]; ok {
				s.disk[d.uri] = d
				s.publish(d) // a saved file may now have its recording
			}
		}
	case "textDocument/didClose":
		var p DidCloseTextDocumentParams
		if json.Unmarshal(params, &p) == nil {
			delete(s.docs, p.TextDocument.URI)
			s.loadDisk(p.TextDocument.URI)
			_ = s.conn.notify("textDocument/publishDiagnostics", PublishDiagnosticsParams{URI: p.TextDocument.URI, Diagnostics: []Diagnostic{}})
		}
	case "initialized":
		if s.watch && s.conn != nil {
			// recordings made in a terminal, feature files changed outside
			// the editor: hear of them (the reply is not waited for)
			_ = s.conn.write(&message{ID: json.RawMessage(`"replaylab-watch"`), Method: "client/registerCapability", Params: watchRegistration})
		}
	case "workspace/didChangeWatchedFiles":
		s.scan()
		for _, d := range s.docs {
			s.publish(d)
		}
	}
}

// watchRegistration asks the client to report changes under
// recordings/ and to feature files (workspace/didChangeWatchedFiles).
var watchRegistration = json.RawMessage(`{"registrations":[{"id":"replaylab-watch","method":"workspace/didChangeWatchedFiles",` +
	`"registerOptions":{"watchers":[{"globPattern":"**/recordings/**"},{"globPattern":"**/*.feature"}]}}]}`)

// initialize finds the root, reads features/ and says what the server
// answers.
func (s *Server) initialize(params json.RawMessage) (any, *ResponseError) {
	var p InitializeParams
	if len(params) > 0 {
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, invalidParams(err)
		}
	}
	if s.state {
		return nil, &ResponseError{Code: CodeInvalidRequest, Message: "initialize was already answered"}
	}
	s.state = true
	s.watch = p.Capabilities.Workspace.DidChangeWatchedFiles.DynamicRegistration
	s.root = s.opt.Root
	if s.root == "" {
		start := ""
		switch {
		case len(p.WorkspaceFolders) > 0:
			start = URIPath(p.WorkspaceFolders[0].URI)
		case p.RootURI != "":
			start = URIPath(p.RootURI)
		case p.RootPath != "":
			start = p.RootPath
		}
		if start == "" {
			start, _ = os.Getwd()
		}
		s.root = FindRoot(start)
	}
	if abs, err := filepath.Abs(s.root); err == nil {
		s.root = abs
	}
	if s.opt.VocabularyOf != nil {
		v := s.opt.VocabularyOf(s.root)
		m, err := newMatcher(v.Steps())
		if err != nil {
			return nil, &ResponseError{Code: CodeInternalError, Message: "lsp: catalogue: " + err.Error()}
		}
		s.opt.Vocabulary, s.m = v, m
	}
	s.scan()
	s.logf("root %s: %d feature files, %d catalogue steps", s.root, len(s.disk), len(s.m.steps))
	return InitializeResult{
		Capabilities: ServerCapabilities{
			PositionEncoding:       "utf-16",
			TextDocumentSync:       TextDocumentSync{OpenClose: true, Change: SyncFull, Save: true},
			CompletionProvider:     CompletionOptions{TriggerCharacters: []string{"@", " "}},
			HoverProvider:          true,
			DefinitionProvider:     true,
			DocumentSymbolProvider: true,
			CodeActionProvider:     CodeActionOptions{CodeActionKinds: []string{"quickfix"}},
			ExecuteCommandProvider: ExecuteCommandOptions{Commands: []string{CommandRun}},
		},
		ServerInfo: ServerInfo{Name: ServerName, Version: ServerVersion},
	}, nil
}

// Initialize is initialize for a server whose handlers are called
// directly (tests, benchmarks): it finds the root and reads features/.
func (s *Server) Initialize() {
	_, _ = s.initialize(nil)
}

// Root is the project root the server reads.
func (s *Server) Root() string { return s.root }

// FindRoot is the nearest directory at or above dir that has a
// features/ directory, else dir.
func FindRoot(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return dir
	}
	for d := abs; ; {
		if st, err := os.Stat(filepath.Join(d, "features")); err == nil && st.IsDir() {
			return d
		}
		parent := filepath.Dir(d)
		if parent == d {
			return abs
		}
		d = parent
	}
}

// scan reads every feature file under root/features from disk.
func (s *Server) scan() {
	s.disk = map[string]*document{}
	dir := filepath.Join(s.root, "features")
	_ = filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() || !strings.HasSuffix(p, ".feature") {
			return nil
		}
		s.loadDisk(PathURI(p))
		return nil
	})
}

// loadDisk reads the file of uri into the disk set (or drops it when it
// is gone).
func (s *Server) loadDisk(uri string) {
	p := URIPath(uri)
	data, err := os.ReadFile(p)
	if err != nil {
		delete(s.disk, uri)
		return
	}
	s.disk[uri] = parseDocument(uri, p, s.relPath(p), 0, string(data))
}

// relPath names a file for hints and run: relative to the root,
// slash-separated, when under it; else absolute.
func (s *Server) relPath(p string) string {
	if p == "" {
		return ""
	}
	if rel, err := filepath.Rel(s.root, p); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return filepath.ToSlash(rel)
	}
	return filepath.ToSlash(p)
}

// Open is textDocument/didOpen: the document is parsed and its
// diagnostics published.
//
// Only .feature files are read: a client that sends other documents
// (an editor configured for every plain text file) gets no diagnostics
// for them.
func (s *Server) Open(uri string, version int, text string) []Diagnostic {
	if !isFeature(uri) {
		return nil
	}
	p := URIPath(uri)
	d := parseDocument(uri, p, s.relPath(p), version, text)
	s.docs[uri] = d
	return s.publish(d)
}

// Change is textDocument/didChange (whole documents, or ranges applied
// in order).
func (s *Server) Change(p DidChangeTextDocumentParams) []Diagnostic {
	d, ok := s.docs[p.TextDocument.URI]
	if !ok {
		return nil
	}
	text := d.text
	for _, c := range p.ContentChanges {
		if c.Range == nil {
			text = c.Text
			continue
		}
		text = applyEdit(text, *c.Range, c.Text)
	}
	return s.Open(d.uri, p.TextDocument.Version, text)
}

// applyEdit replaces r of text by repl.
func applyEdit(text string, r Range, repl string) string {
	d := &document{lines: strings.SplitAfter(text, "\n")}
	at := func(p Position) int {
		off := 0
		for i := 0; i < p.Line && i < len(d.lines); i++ {
			off += len(d.lines[i])
		}
		if p.Line < len(d.lines) {
			off += byteOffset(strings.TrimRight(d.lines[p.Line], "\r\n"), p.Character)
		}
		return min(off, len(text))
	}
	a, b := at(r.Start), at(r.End)
	if b < a {
		a, b = b, a
	}
	return text[:a] + repl + text[b:]
}

// publish sends the document's diagnostics.
func (s *Server) publish(d *document) []Diagnostic {
	diags := s.Diagnostics(d)
	d.diags = diags
	if s.conn != nil {
		v := d.version
		if err := s.conn.notify("textDocument/publishDiagnostics", PublishDiagnosticsParams{URI: d.uri, Version: &v, Diagnostics: diags}); err != nil {
			s.logf("publish %s: %v", d.uri, err)
		}
	}
	return diags
}

// document returns the open document of uri, else the file on disk.
func (s *Server) document(uri string) *document {
	if !isFeature(uri) {
		return nil
	}
	if d, ok := s.docs[uri]; ok {
		return d
	}
	if d, ok := s.disk[uri]; ok {
		return d
	}
	p := URIPath(uri)
	if p == "" {
		return nil
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return nil
	}
	return parseDocument(uri, p, s.relPath(p), 0, string(data))
}

// allDocuments is every feature file the server knows, open documents
// in place of their files on disk, in path order.
func (s *Server) allDocuments() []*document {
	seen := map[string]*document{}
	key := func(d *document) string {
		if d.path != "" {
			return d.path
		}
		return d.uri
	}
	for _, d := range s.disk {
		seen[key(d)] = d
	}
	for _, d := range s.docs {
		seen[key(d)] = d
	}
	uris := make([]string, 0, len(seen))
	for u := range seen {
		uris = append(uris, u)
	}
	sort.Strings(uris)
	out := make([]*document, len(uris))
	for i, u := range uris {
		out[i] = seen[u]
	}
	return out
}

func (s *Server) logf(format string, args ...any) {
	if s.opt.Log != nil {
		fmt.Fprintf(s.opt.Log, "replaylab lsp: "+format+"\n", args...)
	}
}

// isFeature reports whether uri names a .feature file.
func isFeature(uri string) bool {
	u, err := url.Parse(uri)
	if err != nil {
		return false
	}
	return strings.HasSuffix(u.Path, ".feature")
}

// URIPath is the file path of a file: URI, "" for another scheme.
func URIPath(uri string) string {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" {
		return ""
	}
	p := u.Path
	if runtime.GOOS == "windows" {
		p = strings.TrimPrefix(p, "/")
	}
	return filepath.FromSlash(p)
}

// PathURI is the file: URI of a path.
func PathURI(p string) string {
	if abs, err := filepath.Abs(p); err == nil {
		p = abs
	}
	p = filepath.ToSlash(p)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p
	}
	return (&url.URL{Scheme: "file", Path: p}).String()
}
