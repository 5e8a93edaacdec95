package fakellm

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

// handleCache answers GET /_cache with the cache's entries and totals.
func (s *Server) handleCache(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, s.CacheStats())
}

// handleClearCache answers DELETE /_cache: every entry and total goes.
func (s *Server) handleClearCache(w http.ResponseWriter, _ *http.Request) {
	s.ClearCache()
	w.WriteHeader(http.StatusNoContent)
}

// handleClock answers POST /_clock {"advance": "6m"}: the fake's clock
// moves on by that much, and the answer is its new time.
func (s *Server) handleClock(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Advance string `json:"advance"`
	}
	err := json.NewDecoder(r.Body).Decode(&req)
	d, perr := time.ParseDuration(req.Advance)
	if err != nil || perr != nil || d < 0 {
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": fmt.Sprintf("want {\"advance\": \"6m\"}, a duration of 0 or more, got %q", req.Advance)})
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"now": s.Advance(d)})
}
