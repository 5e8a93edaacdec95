package llm_test

import (
	"bytes"
	"encoding/base64"
	"os"
	"strings"
	"testing"

	"myco/e2e/fakellm"
	"myco/server/llm"
	"myco/session"
)

// documentStore is a real store holding the test PDF and a Go file.
func documentStore(t *testing.T) (store *session.Images, pdf, goFile session.FileRef, pdfBytes []byte) {
	t.Helper()
	store, err := session.OpenImages(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	pdfBytes, err = os.ReadFile("../../testdata/documents/hello.pdf")
	if err != nil {
		t.Fatal(err)
	}
	if pdf, err = store.PutFile("hello.pdf", pdfBytes); err != nil {
		t.Fatal(err)
	}
	src := []byte("package main\n\n// ```not a fence```\nfunc main() {}\n")
	if goFile, err = store.PutFile("main.go", src); err != nil {
		t.Fatal(err)
	}
	return store, pdf, goFile, pdfBytes
}

// TestAttachedFilesReachTheModel checks each provider's request for the
// two documents of a person's message, and that the bytes are the same on
// a second call (the prompt cache).
func TestAttachedFilesReachTheModel(t *testing.T) {
	tests := []struct {
		name     string
		client   func(srv *fakellm.Server, images llm.ImageReader) llm.Client
		wantPDF  func(t *testing.T, body string, pdf []byte)
		wantEcho string
	}{
		{
			name:   "anthropic takes the PDF as a document block",
			client: providers[0].client,
			wantPDF: func(t *testing.T, body string, pdf []byte) {
				want := `{"source":{"data":"` + base64.StdEncoding.EncodeToString(pdf) + `","media_type":"application/pdf","type":"base64"},"title":"hello.pdf","type":"document"}`
				if !strings.Contains(body, want) {
					t.Errorf("no document block with the PDF in %.600s", body)
				}
			},
			wantEcho: "[document hello.pdf: PDF, 601 bytes]",
		},
		{
			name:   "a local OpenAI-compatible server gets the PDF's text",
			client: providers[1].client,
			wantPDF: func(t *testing.T, body string, _ []byte) {
				if !strings.Contains(body, "Attached file: hello.pdf (PDF, its text as extracted by myco, 601 B)") ||
					!strings.Contains(body, "Hello from a myco test PDF") {
					t.Errorf("no extracted text of the PDF in %.800s", body)
				}
				if strings.Contains(body, `"type":"file"`) {
					t.Errorf("a file part went to a server that is not api.openai.com")
				}
			},
			wantEcho: "Attached file: hello.pdf",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			store, pdf, goFile, pdfBytes := documentStore(t)
			srv := fakellm.Start(t)
			c := tt.client(srv, store)
			req := request(human("what is in these?", pdf.Block(), goFile.Block()))
			resp := mustStreamOK(t, c, req)
			if !strings.Contains(text(resp), tt.wantEcho) {
				t.Errorf("the fake did not see the PDF: %q", text(resp))
			}
			body := string(srv.Requests()[0].Body)
			tt.wantPDF(t, body, pdfBytes)
			// The .go file: a text block naming it, fenced past the
			// backticks inside, tagged go.
			wantGo := "Attached file: main.go (text, 50 B)\n````go\npackage main\n"
			if !strings.Contains(strings.ReplaceAll(body, `\n`, "\n"), wantGo) {
				t.Errorf("no fenced text block for main.go in %.1200s", body)
			}
			mustStreamOK(t, c, req)
			if again := srv.Requests()[1].Body; !bytes.Equal(again, srv.Requests()[0].Body) {
				t.Errorf("the second request's bytes differ from the first's")
			}
		})
	}
}

func mustStreamOK(t *testing.T, c llm.Client, req llm.Request) llm.Response {
	t.Helper()
	resp, _ := mustStream(t, c, req)
	return resp
}

// TestMissingFileFailsTheCall: a blob gone from the store fails the call
// with its name, before anything is sent.
func TestMissingFileFailsTheCall(t *testing.T) {
	store, _, goFile, _ := documentStore(t)
	path, _ := store.Path(goFile.SHA256)
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	for _, p := range providers {
		t.Run(p.name, func(t *testing.T) {
			srv := fakellm.Start(t)
			_, _, err := stream(t, p.client(srv, store), request(human("look", goFile.Block())))
			if err == nil || !strings.Contains(err.Error(), "main.go") {
				t.Fatalf("err = %v, want one naming main.go", err)
			}
			if n := len(srv.Requests()); n != 0 {
				t.Errorf("%d requests sent", n)
			}
		})
	}
}
