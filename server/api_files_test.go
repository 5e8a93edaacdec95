package server_test

import (
	"bytes"
	"encoding/json"
	"io"
	"mime/multipart"
	"net/http"
	"os"
	"strings"
	"testing"

	"myco/session"
)

func testPDF(t *testing.T) []byte {
	t.Helper()
	pdf, err := os.ReadFile("../testdata/documents/hello.pdf")
	if err != nil {
		t.Fatal(err)
	}
	return pdf
}

// TestFilesAPI: upload raw and multipart, the same bytes stored once, the
// limits and the refusals, and how a file is served.
func TestFilesAPI(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t)
	pdf := testPDF(t)
	resp := ts.do("POST", "/api/files?name=report.pdf", bytes.NewReader(pdf), "Content-Type", "application/octet-stream")
	wantStatus(t, resp, 200)
	ref := decode[session.FileRef](t, resp)
	if ref.MediaType != session.MediaPDF || ref.Name != "report.pdf" || ref.Size != int64(len(pdf)) || len(ref.SHA256) != 64 {
		t.Fatalf("ref %+v", ref)
	}

	var form bytes.Buffer
	mw := multipart.NewWriter(&form)
	fw, _ := mw.CreateFormFile("file", "../../copy.pdf") // only the last element is kept
	fw.Write(pdf)
	mw.Close()
	resp = ts.do("POST", "/api/files", &form, "Content-Type", mw.FormDataContentType())
	wantStatus(t, resp, 200)
	again := decode[session.FileRef](t, resp)
	if again.SHA256 != ref.SHA256 || again.Name != "copy.pdf" {
		t.Errorf("multipart ref %+v, want the same blob named copy.pdf", again)
	}
	path, _ := ts.images.Path(ref.SHA256)
	if entries, _ := os.ReadDir(path[:len(path)-65]); len(entries) != 1 {
		t.Errorf("the same bytes are stored %d times", len(entries))
	}

	refusals := []struct {
		name   string
		body   []byte
		status int
		says   string
	}{
		{"binary", []byte{0x7f, 'E', 'L', 'F', 0, 1, 2}, 400, "prog.bin"},
		{"an image", pngBytes(t), 400, "attach it as an image"},
		{"empty", nil, 400, "empty"},
		{"text over 1 MiB", bytes.Repeat([]byte("a"), session.MaxTextFileSize+1), 413, "text files may be up to 1.0 MB"},
		{"a PDF over 32 MiB", append([]byte("%PDF-"), make([]byte, session.MaxPDFSize)...), 413, "PDFs may be up to"},
	}
	for _, r := range refusals {
		t.Run(r.name, func(t *testing.T) {
			resp := ts.do("POST", "/api/files?name=prog.bin", bytes.NewReader(r.body), "Content-Type", "text/plain")
			wantStatus(t, resp, r.status)
			if e := decode[map[string]string](t, resp); !strings.Contains(e["error"], r.says) {
				t.Errorf("error %q does not say %q", e["error"], r.says)
			}
		})
	}

	html := []byte("<html><script>alert(1)</script></html>\n")
	resp = ts.do("POST", "/api/files?name=page.html", bytes.NewReader(html))
	wantStatus(t, resp, 200)
	htmlRef := decode[session.FileRef](t, resp)
	served := []struct {
		sha, name, ctype, disposition string
		body                          []byte
	}{
		{ref.SHA256, "report.pdf", "application/pdf", `inline; filename=report.pdf`, pdf},
		{htmlRef.SHA256, "page.html", "text/plain; charset=utf-8", `inline; filename=page.html`, html},
		{ref.SHA256, `a "b".pdf`, "application/pdf", `inline; filename="a \"b\".pdf"`, pdf},
	}
	for _, s := range served {
		resp := ts.do("GET", "/files/"+s.sha+"?name="+strings.ReplaceAll(s.name, " ", "%20"), nil)
		wantStatus(t, resp, 200)
		got, _ := io.ReadAll(resp.Body)
		h := resp.Header
		if !bytes.Equal(got, s.body) || h.Get("Content-Type") != s.ctype || h.Get("Content-Disposition") != s.disposition ||
			h.Get("X-Content-Type-Options") != "nosniff" || !strings.Contains(h.Get("Content-Security-Policy"), "sandbox") {
			t.Errorf("%s served as %q, %q, nosniff %q, CSP %q", s.name, h.Get("Content-Type"), h.Get("Content-Disposition"),
				h.Get("X-Content-Type-Options"), h.Get("Content-Security-Policy"))
		}
	}
	// An image's blob asked for as a file is a download, never shown.
	img := decode[session.ImageRef](t, ts.do("POST", "/api/images", bytes.NewReader(pngBytes(t))))
	resp = ts.do("GET", "/files/"+img.SHA256+"?name=x.svg", nil)
	wantStatus(t, resp, 200)
	if resp.Header.Get("Content-Type") != "application/octet-stream" || !strings.HasPrefix(resp.Header.Get("Content-Disposition"), "attachment") {
		t.Errorf("image as a file served as %q, %q", resp.Header.Get("Content-Type"), resp.Header.Get("Content-Disposition"))
	}
	missing := strings.Repeat("ab", 32)
	resp = ts.do("GET", "/files/"+missing+"?name=gone.txt", nil)
	wantStatus(t, resp, 404)
	if e := decode[map[string]string](t, resp); !strings.Contains(e["error"], "gone.txt") {
		t.Errorf("missing file error %q does not name it", e["error"])
	}
}

// TestFilesReachTheModel: a message with a PDF and a .go file keeps their
// references in the document and sends both; a missing one is refused
// with its name and nothing is sent.
func TestFilesReachTheModel(t *testing.T) {
	t.Parallel()
	cs := newChatServer(t, "anthropic")
	s := cs.create("documents")
	st := cs.stream(t, s.ID)
	pdf := decode[session.FileRef](t, cs.do("POST", "/api/files?name=report.pdf", bytes.NewReader(testPDF(t))))
	src := decode[session.FileRef](t, cs.do("POST", "/api/files?name=main.go", strings.NewReader("package main\n")))
	body, _ := json.Marshal(map[string]any{"text": "read these", "files": []any{
		map[string]string{"sha256": pdf.SHA256, "name": "report.pdf"}, src.SHA256,
	}})
	wantStatus(t, cs.do("POST", "/api/sessions/"+s.ID+"/messages", bytes.NewReader(body)), http.StatusAccepted)
	st.until("turn.end")
	reqs := cs.fake.Requests()
	sent := string(reqs[0].Body)
	if !strings.Contains(sent, `"type":"document"`) || !strings.Contains(sent, `"title":"report.pdf"`) {
		t.Errorf("no document block for the PDF: %.400s", sent)
	}
	wantName := "file-" + src.SHA256[:8] // sent by its sha alone
	if !strings.Contains(sent, "Attached file: "+wantName+" (text, 13 B)") {
		t.Errorf("no text block for the .go file: %.2000s", sent)
	}
	doc, _ := cs.sessions.Load(s.ID)
	msgs := doc.Threads[0].Messages
	var files []session.FileRef
	for _, b := range msgs[0].Content {
		if b.Type == session.BlockFile {
			files = append(files, session.FileRefOf(b))
		}
	}
	if len(files) != 2 || files[0] != (session.FileRef{SHA256: pdf.SHA256, Name: "report.pdf", MediaType: session.MediaPDF, Size: pdf.Size}) ||
		files[1].Name != wantName || files[1].MediaType != session.MediaText {
		t.Errorf("file blocks %+v", files)
	}

	// A fork refers to the same blobs.
	resp := cs.do("POST", "/api/sessions/"+s.ID+"/fork", strings.NewReader("{}"))
	wantStatus(t, resp, http.StatusCreated)
	fork := decode[session.Summary](t, resp)
	forked, _ := cs.sessions.Load(fork.ID)
	if got := forked.Threads[0].Messages[0].Content; len(got) < 2 || got[0].Type != session.BlockFile || got[0].SHA256 != pdf.SHA256 {
		t.Errorf("the fork's first message holds %+v", got)
	}

	cs.fake.Reset()
	missing := strings.Repeat("cd", 32)
	body, _ = json.Marshal(map[string]any{"text": "and this?", "files": []any{map[string]string{"sha256": missing, "name": "notes.txt"}}})
	resp = cs.do("POST", "/api/sessions/"+s.ID+"/messages", bytes.NewReader(body))
	wantStatus(t, resp, http.StatusNotFound)
	if e := decode[map[string]string](t, resp); !strings.Contains(e["error"], "notes.txt") {
		t.Errorf("error %q does not name the file", e["error"])
	}
	wantStatus(t, cs.do("POST", "/api/sessions/"+s.ID+"/messages", strings.NewReader(`{"files":["nope"]}`)), 400)
	if n := len(cs.fake.Requests()); n != 0 {
		t.Errorf("%d model requests after a refused message", n)
	}
}

// TestQueuedFilesComeBackOnStop: a message queued with a file keeps it,
// and Stop gives it back with its name, for the composer to put back.
func TestQueuedFilesComeBackOnStop(t *testing.T) {
	t.Parallel()
	cs := newChatServer(t, "anthropic")
	s := cs.create("queued files")
	st := cs.stream(t, s.ID)
	wantStatus(t, cs.send(s.ID, `[[tool:bash {"command":"echo hold"}]]`), http.StatusAccepted)
	st.until("tool.approval")
	src := decode[session.FileRef](t, cs.do("POST", "/api/files?name=notes.md", strings.NewReader("# notes\n")))
	body, _ := json.Marshal(map[string]any{"text": "then read this", "queue": true, "files": []any{map[string]string{"sha256": src.SHA256, "name": "notes.md"}}})
	wantStatus(t, cs.do("POST", "/api/sessions/"+s.ID+"/messages", bytes.NewReader(body)), http.StatusAccepted)
	resp := cs.post("POST", s.ID, "/stop", "")
	wantStatus(t, resp, http.StatusOK)
	got := decode[struct {
		Unqueued []struct {
			Text  string            `json:"text"`
			Files []session.FileRef `json:"files"`
		} `json:"unqueued"`
	}](t, resp)
	want := session.FileRef{SHA256: src.SHA256, Name: "notes.md", MediaType: session.MediaText, Size: 8}
	if len(got.Unqueued) != 1 || len(got.Unqueued[0].Files) != 1 || got.Unqueued[0].Files[0] != want {
		t.Errorf("unqueued %+v, want the message with %+v", got.Unqueued, want)
	}
	st.until("turn.end")
}
