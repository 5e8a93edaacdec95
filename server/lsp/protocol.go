package lsp

import (
	"net/url"
	"path/filepath"
)

// The few LSP messages myco sends and reads (LSP 3.17), typed by hand:
// see the package comment for why not a protocol package.

type position struct {
	Line      int `json:"line"`
	Character int `json:"character"`
}

type lspRange struct {
	Start position `json:"start"`
	End   position `json:"end"`
}

// Diagnostic is one of a server's diagnostics, as LSP sends it: line and
// character from 0.
type Diagnostic struct {
	Range    lspRange `json:"range"`
	Severity int      `json:"severity,omitempty"`
	Code     any      `json:"code,omitempty"`
	Source   string   `json:"source,omitempty"`
	Message  string   `json:"message"`
}

// LSP's severities; 0 (absent) is taken as an error, as clients do.
const (
	SeverityError       = 1
	SeverityWarning     = 2
	SeverityInformation = 3
	SeverityHint        = 4
)

type publishDiagnosticsParams struct {
	URI         string       `json:"uri"`
	Version     *int         `json:"version,omitempty"`
	Diagnostics []Diagnostic `json:"diagnostics"`
}

type workspaceFolder struct {
	URI  string `json:"uri"`
	Name string `json:"name"`
}

type initializeParams struct {
	ProcessID        int               `json:"processId"`
	RootURI          string            `json:"rootUri"`
	WorkspaceFolders []workspaceFolder `json:"workspaceFolders"`
	Capabilities     map[string]any    `json:"capabilities"`
	ClientInfo       map[string]string `json:"clientInfo"`
}

type textDocumentItem struct {
	URI        string `json:"uri"`
	LanguageID string `json:"languageId"`
	Version    int    `json:"version"`
	Text       string `json:"text"`
}

type didOpenParams struct {
	TextDocument textDocumentItem `json:"textDocument"`
}

type versionedDocument struct {
	URI     string `json:"uri"`
	Version int    `json:"version"`
}

type contentChange struct {
	Text string `json:"text"`
}

type didChangeParams struct {
	TextDocument   versionedDocument `json:"textDocument"`
	ContentChanges []contentChange   `json:"contentChanges"`
}

type documentID struct {
	URI string `json:"uri"`
}

type didCloseParams struct {
	TextDocument documentID `json:"textDocument"`
}

type fileEvent struct {
	URI  string `json:"uri"`
	Type int    `json:"type"` // 1 created, 2 changed, 3 deleted
}

type didChangeWatchedFilesParams struct {
	Changes []fileEvent `json:"changes"`
}

type configurationParams struct {
	Items []any `json:"items"`
}

// clientCapabilities are what myco says it does: take pushed
// diagnostics with their document version, answer configuration
// requests (with nothing: the server's defaults), tell of changed files.
var clientCapabilities = map[string]any{
	"textDocument": map[string]any{
		"synchronization":    map[string]any{"dynamicRegistration": false},
		"publishDiagnostics": map[string]any{"versionSupport": true, "relatedInformation": false},
	},
	"workspace": map[string]any{
		"workspaceFolders":      true,
		"configuration":         true,
		"didChangeWatchedFiles": map[string]any{"dynamicRegistration": false},
	},
	"window": map[string]any{"workDoneProgress": false},
}

// fileURI is the file: URI of an absolute path.
func fileURI(path string) string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(path)}).String()
}
