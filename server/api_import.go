package server

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"myco/importer"
	"myco/internal/errkind"
	"myco/web"
)

// An import from another agent runs as a job in the background
// (importer.Run): POST /api/import starts it, GET /api/import/{job} says
// how far it is and, once done, what it made. The Import page polls the
// latter for its progress bar. Jobs live in memory: a restart forgets
// them, never the sessions they made (each is saved whole as it goes).

// importJob is one import, as GET /api/import/{job} shows it.
type importJob struct {
	ID       string            `json:"id"`
	Tool     string            `json:"tool"`
	Paths    []string          `json:"paths"`
	State    string            `json:"state"` // running, done or failed
	Progress importer.Progress `json:"progress"`
	Report   *importer.Report  `json:"report,omitempty"`
	Error    string            `json:"error,omitempty"`
}

// Import jobs' states.
const (
	importRunning = "running"
	importDone    = "done"
	importFailed  = "failed"
)

// maxImportJobs bounds the finished jobs kept for GET.
const maxImportJobs = 20

// importJobs are the server's imports, newest last.
type importJobs struct {
	mu   sync.Mutex
	jobs []*importJob
}

var errImportRunning = errkind.New(errkind.Conflict, "an import is running")

// start registers a job unless one runs (two imports of one source at
// once would race to make the same session).
func (j *importJobs) start(tool string, paths []string) (*importJob, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	for _, job := range j.jobs {
		if job.State == importRunning {
			return nil, fmt.Errorf("%w: %s (wait for it to end)", errImportRunning, job.ID)
		}
	}
	job := &importJob{ID: uuid.NewString(), Tool: tool, Paths: paths, State: importRunning}
	j.jobs = append(j.jobs, job)
	if len(j.jobs) > maxImportJobs {
		j.jobs = slices.Delete(j.jobs, 0, len(j.jobs)-maxImportJobs)
	}
	return job, nil
}

// get is a copy of job id, safe to encode while the job goes on.
func (j *importJobs) get(id string) (importJob, bool) {
	j.mu.Lock()
	defer j.mu.Unlock()
	for _, job := range j.jobs {
		if job.ID == id {
			return *job, true
		}
	}
	return importJob{}, false
}

func (j *importJobs) update(fn func()) {
	j.mu.Lock()
	defer j.mu.Unlock()
	fn()
}

type importRequest struct {
	Tool  string   `json:"tool"`
	Paths []string `json:"paths"`
}

// maxImportPaths bounds the paths one request names.
const maxImportPaths = 100

// postImport starts an import: 202 with the job.
func (s *Server) postImport(c echo.Context) error {
	var req importRequest
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	if !slices.Contains(importer.Tools, req.Tool) {
		return fmt.Errorf("%w: tool must be one of %s", errBadInput, strings.Join(importer.Tools, ", "))
	}
	if len(req.Paths) > maxImportPaths {
		return fmt.Errorf("%w: at most %d paths", errBadInput, maxImportPaths)
	}
	var paths []string
	for _, p := range req.Paths {
		if p = strings.TrimSpace(p); p != "" {
			paths = append(paths, p)
		}
	}
	for _, p := range paths {
		if !strings.HasPrefix(p, "/") {
			return fmt.Errorf("%w: %q is not an absolute path", errBadInput, p)
		}
	}
	job, err := s.imports.start(req.Tool, paths)
	if err != nil {
		return err
	}
	go s.runImport(job)
	out, _ := s.imports.get(job.ID)
	return c.JSON(http.StatusAccepted, out)
}

func (s *Server) runImport(job *importJob) {
	ctx := s.runCtx
	if ctx == nil {
		ctx = context.Background()
	}
	rep, err := importer.Run(ctx, importer.Options{
		Tool: job.Tool, Paths: job.Paths, Getenv: s.getenv,
		Sessions: s.opts.Sessions, Images: s.opts.Images, Now: s.opts.Now,
		Progress: func(p importer.Progress) { s.imports.update(func() { job.Progress = p }) },
	})
	s.imports.update(func() {
		job.Report, job.State = rep, importDone
		if rep != nil {
			job.Paths = rep.Paths
		}
		if err != nil {
			job.State, job.Error = importFailed, err.Error()
		}
	})
	if err != nil {
		s.log.Warn("import failed", "tool", job.Tool, "err", err)
	}
}

// getImport is a job's progress and, once done, its report.
func (s *Server) getImport(c echo.Context) error {
	job, ok := s.imports.get(c.Param("job"))
	if !ok {
		return echo.NewHTTPError(http.StatusNotFound, "no such import")
	}
	return c.JSON(http.StatusOK, job)
}

// importPage is the Import page: a form per tool with its default folder.
func (s *Server) importPage(c echo.Context) error {
	v := web.ImportView{Profile: s.opts.Profile}
	for _, tool := range importer.Tools {
		p, _ := importer.DefaultPath(tool, s.getenv)
		v.Tools = append(v.Tools, web.ImportTool{Tool: tool, Label: importLabels[tool], DefaultPath: p})
	}
	return render(c, http.StatusOK, web.ImportPage(v))
}

var importLabels = map[string]string{
	importer.ClaudeCode: "Claude Code",
	importer.Codex:      "Codex",
	importer.OpenCode:   "opencode",
}
