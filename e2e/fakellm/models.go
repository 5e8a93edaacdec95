package fakellm

import "net/http"

// servedModels are the models the fake says it serves: the ones the tests
// name, and a real name of each family for the catalogue's windows and
// prices. Both wire formats list the same ones.
var servedModels = []struct {
	id     string
	window int // Anthropic's max_input_tokens
}{
	{"fake-model", 200000},
	{"fake-title", 200000},
	{"fake-fast", 200000},
	{"claude-sonnet-4-5-20250929", 200000},
	{"gpt-4.1", 0},
	{"llama3.1:8b", 0},
}

// handleModels answers GET /v1/models in the shape of the client that
// asks: the Anthropic SDK always sends anthropic-version, the OpenAI one
// never does.
func (s *Server) handleModels(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("Anthropic-Version") != "" {
		writeJSON(w, http.StatusOK, anthropicModels())
		return
	}
	writeJSON(w, http.StatusOK, openAIModels())
}

func anthropicModels() map[string]any {
	data := make([]map[string]any, 0, len(servedModels))
	for _, m := range servedModels {
		data = append(data, map[string]any{
			"type": "model", "id": m.id, "display_name": m.id,
			"created_at": "2026-01-01T00:00:00Z", "lifecycle": "active",
			"max_input_tokens": m.window, "max_tokens": 64000,
		})
	}
	first, last := servedModels[0].id, servedModels[len(servedModels)-1].id
	return map[string]any{"data": data, "has_more": false, "first_id": first, "last_id": last}
}

func openAIModels() map[string]any {
	data := make([]map[string]any, 0, len(servedModels))
	for _, m := range servedModels {
		data = append(data, map[string]any{"id": m.id, "object": "model", "created": 1767225600, "owned_by": "fakellm"})
	}
	return map[string]any{"object": "list", "data": data}
}
