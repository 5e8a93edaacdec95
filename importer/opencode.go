package importer

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"myco/session"
)

// opencode reads opencode's sessions: from its SQLite database
// (opencode.db, versions 1.2 and later; opencode_db.go), or from the JSON
// storage of versions up to 1.1: storage/session/<project>/<session>.json,
// storage/message/<session>/<message>.json, storage/part/<message>/
// <part>.json (PEER-FORMATS §3).
type opencode struct {
	// dbs are the databases this import opened, by path.
	dbs map[string]*ocDB
}

type ocSession struct {
	ID        string `json:"id"`
	Title     string `json:"title"`
	Directory string `json:"directory"`
	ParentID  string `json:"parentID"`
	Time      ocTime `json:"time"`
}

type ocTime struct {
	Created   int64 `json:"created"`
	Updated   int64 `json:"updated"`
	Completed int64 `json:"completed"`
	Archived  int64 `json:"archived"` // a session's: the time_archived column of opencode.db
}

type ocMessage struct {
	ID         string `json:"id"`
	Role       string `json:"role"`
	Time       ocTime `json:"time"`
	ProviderID string `json:"providerID"`
	ModelID    string `json:"modelID"`
	Model      *struct {
		ProviderID string `json:"providerID"`
		ModelID    string `json:"modelID"`
	} `json:"model"`
	Tokens *struct {
		Input  int64 `json:"input"`
		Output int64 `json:"output"`
		Cache  struct {
			Read  int64 `json:"read"`
			Write int64 `json:"write"`
		} `json:"cache"`
	} `json:"tokens"`
	Finish string `json:"finish"`
}

type ocPart struct {
	ID        string `json:"id"`
	Type      string `json:"type"`
	Text      string `json:"text"`
	Synthetic bool   `json:"synthetic"`
	Mime      string `json:"mime"`
	Filename  string `json:"filename"`
	URL       string `json:"url"`
	CallID    string `json:"callID"`
	Tool      string `json:"tool"`
	State     *struct {
		Status string         `json:"status"`
		Input  jsontext.Value `json:"input"`
		Output string         `json:"output"`
		Error  string         `json:"error"`
	} `json:"state"`
}

// maxInfoFile bounds one of opencode's small JSON files (a session, a
// message, a part); a part may hold a file's content or an image.
const maxInfoFile = MaxLine

// storageRoot finds the storage folder from what the person named: the
// storage folder, opencode's data folder above it, or a session's file.
func storageRoot(path string) (string, error) {
	for _, p := range []string{path, filepath.Join(path, "storage")} {
		if info, err := os.Stat(filepath.Join(p, "session")); err == nil && info.IsDir() {
			return p, nil
		}
	}
	if _, err := os.Stat(path); err != nil {
		return "", err
	}
	return "", fmt.Errorf("%w: %s holds no opencode storage (opencode.db, or a folder with session/, message/ and part/)", ErrNotSession, path)
}

func fileExists(p string) bool {
	info, err := os.Stat(p)
	return err == nil && info.Mode().IsRegular()
}

func (o *opencode) find(path string) ([]Candidate, error) {
	var files []string
	if strings.HasSuffix(path, ".json") && fileExists(path) {
		// One session's file: storage/session/<project>/<id>.json (read
		// finds the storage folder from it).
		files = []string{path}
	} else if db := databaseIn(path); db != "" {
		// The database is preferred when both are there: opencode 1.2
		// moved every session of the storage folder into it.
		return o.findInDatabase(db)
	} else {
		root, err := storageRoot(path)
		if err != nil {
			return nil, err
		}
		files, err = walk(filepath.Join(root, "session"), func(p string, d os.DirEntry) bool {
			return strings.HasSuffix(d.Name(), ".json")
		})
		if err != nil {
			return nil, err
		}
	}
	out := make([]Candidate, 0, len(files))
	for _, f := range files {
		out = append(out, Candidate{Tool: OpenCode, ID: strings.TrimSuffix(filepath.Base(f), ".json"), Path: f})
	}
	return out, nil
}

// readSmall reads one of opencode's JSON files into v.
func readSmall(path string, v any) error {
	f, err := openSource(path)
	if err != nil {
		return err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxInfoFile+1))
	if err != nil {
		return err
	}
	if len(data) > maxInfoFile {
		return fmt.Errorf("%w: %s is over %d bytes", ErrTooLarge, path, maxInfoFile)
	}
	return json.Unmarshal(data, v, lenient)
}

// readAll reads every JSON file of a folder into Ts, counting the ones
// that do not parse.
func readAll[T any](dir string) ([]T, int, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, err
	}
	var out []T
	bad := 0
	for _, e := range entries {
		if !e.Type().IsRegular() || !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		var v T
		if readSmall(filepath.Join(dir, e.Name()), &v) != nil {
			bad++
			continue
		}
		out = append(out, v)
	}
	return out, bad, nil
}

func msTime(ms int64) time.Time {
	if ms <= 0 {
		return time.Time{}
	}
	return time.UnixMilli(ms).UTC()
}

func (o *opencode) read(c Candidate) (*Conversation, error) {
	if isDatabaseCandidate(c) {
		return o.readFromDatabase(c)
	}
	var s ocSession
	if err := readSmall(c.Path, &s); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNotSession, err)
	}
	if s.ID == "" {
		return nil, fmt.Errorf("%w: it has no opencode session id", ErrNotSession)
	}
	root := filepath.Dir(filepath.Dir(filepath.Dir(c.Path)))
	conv, n := newOCConversation(c, s)
	msgs, bad, err := readAll[ocMessage](filepath.Join(root, "message", s.ID))
	if err != nil {
		return nil, err
	}
	conv.Skipped += bad
	sort.SliceStable(msgs, func(i, j int) bool {
		if msgs[i].Time.Created != msgs[j].Time.Created {
			return msgs[i].Time.Created < msgs[j].Time.Created
		}
		return msgs[i].ID < msgs[j].ID
	})
	for _, m := range msgs {
		parts, bad, err := readAll[ocPart](filepath.Join(root, "part", m.ID))
		if err != nil {
			return nil, err
		}
		conv.Skipped += bad
		sort.SliceStable(parts, func(i, j int) bool { return parts[i].ID < parts[j].ID })
		addOCMessage(conv, m, parts, n)
	}
	conv.Notes = n.list()
	return conv, nil
}

// newOCConversation starts the conversion of session s, whichever storage
// it came from.
func newOCConversation(c Candidate, s ocSession) (*Conversation, *notes) {
	conv := &Conversation{
		Source: session.Source{Tool: OpenCode, ID: c.ID, Path: c.Path},
		Title:  s.Title, Cwd: s.Directory, Created: msTime(s.Time.Created), Updated: msTime(s.Time.Updated),
		Images: images{}, Archived: s.Time.Archived > 0,
	}
	n := &notes{}
	if s.ParentID != "" {
		n.add("a sub-agent's session of opencode session " + s.ParentID)
	}
	return conv, n
}

// addOCMessage converts one message with its parts, in order.
func addOCMessage(conv *Conversation, m ocMessage, parts []ocPart, n *notes) {
	im := images(conv.Images)
	at := msTime(m.Time.Created)
	span(&conv.Created, &conv.Updated, at)
	span(&conv.Created, &conv.Updated, msTime(m.Time.Completed))
	if m.Role == "user" {
		conv.Messages = append(conv.Messages, ocUser(m, parts, at, im, n))
		return
	}
	model := ""
	if m.ProviderID != "" && m.ModelID != "" {
		model = m.ProviderID + "/" + m.ModelID
		conv.Model = model
	}
	conv.Messages = append(conv.Messages, ocAssistant(m, parts, at, model, im, n)...)
}

func ocUser(m ocMessage, parts []ocPart, at time.Time, im images, n *notes) session.Message {
	msg := session.Message{ID: m.ID, Role: "user", At: at, Human: true}
	for _, p := range parts {
		switch p.Type {
		case "text":
			if p.Synthetic {
				n.add("text opencode added to a message (synthetic) left out")
				continue
			}
			msg.Content = append(msg.Content, textBlock(p.Text))
		case "file":
			msg.Content = append(msg.Content, ocFile(p, im, n))
		default:
			raw, _ := json.Marshal(p)
			msg.Content = append(msg.Content, keepAsText(fmt.Sprintf("an opencode %q part", p.Type), raw, n))
		}
	}
	return msg
}

func ocFile(p ocPart, im images, n *notes) session.Block {
	if strings.HasPrefix(p.Mime, "image/") && strings.HasPrefix(p.URL, "data:") {
		return im.dataURL(p.URL, n)
	}
	n.add("an attached file, kept as its name")
	return textBlock(fmt.Sprintf("[file %s (%s) %s]", p.Filename, p.Mime, p.URL))
}

// ocAssistant splits one opencode answer into the model's steps: each
// run of tool calls closes a step, its results going in a user message
// after it, as the Messages API has them.
func ocAssistant(m ocMessage, parts []ocPart, at time.Time, model string, im images, n *notes) []session.Message {
	var out []session.Message
	var blocks, results []session.Block
	step := 0
	flush := func() {
		if len(blocks) == 0 {
			return
		}
		a := session.Message{ID: fmt.Sprintf("%s-%d", m.ID, step), Role: "assistant", At: at, Model: model, Content: blocks}
		if len(results) > 0 {
			a.StopReason = "tool_use"
		}
		out = append(out, a)
		if len(results) > 0 {
			out = append(out, session.Message{ID: fmt.Sprintf("%s-%d-results", m.ID, step), Role: "user", At: at, Content: results})
		}
		blocks, results = nil, nil
		step++
	}
	for _, p := range parts {
		if p.Type != "tool" && len(results) > 0 {
			flush()
		}
		switch p.Type {
		case "text":
			blocks = append(blocks, textBlock(p.Text))
		case "reasoning":
			blocks = append(blocks, session.Block{Type: session.BlockThinking, Thinking: p.Text})
		case "tool":
			if p.State == nil {
				p.State = &struct {
					Status string         `json:"status"`
					Input  jsontext.Value `json:"input"`
					Output string         `json:"output"`
					Error  string         `json:"error"`
				}{}
			}
			blocks = append(blocks, session.Block{Type: session.BlockToolUse, ID: p.CallID, Name: p.Tool, Input: cleanInput(p.State.Input)})
			r := session.Block{Type: session.BlockToolResult, ToolUseID: p.CallID}
			switch p.State.Status {
			case "completed":
				r.Content = jsonString(p.State.Output)
			case "error":
				r.IsError, r.Content = true, jsonString(p.State.Error)
			default:
				r.IsError, r.Content = true, jsonString(fmt.Sprintf("[the call had not finished in opencode (%s)]", p.State.Status))
			}
			results = append(results, r)
		case "file":
			blocks = append(blocks, ocFile(p, im, n))
		case "step-start", "step-finish", "snapshot", "patch", "agent", "retry", "compaction":
			// bookkeeping of opencode's own
		default:
			raw, _ := json.Marshal(p)
			blocks = append(blocks, keepAsText(fmt.Sprintf("an opencode %q part", p.Type), raw, n))
		}
	}
	flush()
	if len(out) > 0 && m.Tokens != nil {
		last := &out[len(out)-1]
		if last.Role == "user" {
			last = &out[len(out)-2]
		}
		last.Usage = &session.Usage{InputTokens: m.Tokens.Input, OutputTokens: m.Tokens.Output,
			CacheReadInputTokens: m.Tokens.Cache.Read, CacheCreationInputTokens: m.Tokens.Cache.Write}
	}
	return out
}
