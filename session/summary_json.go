package session

import (
	"encoding/json"
	"strconv"
	"time"
	"unicode/utf8"
)

// appendSummaryJSON appends sum as encoding/json encodes it (echo's c.JSON,
// so the API's bytes stay the same), about ten times faster: a listing of
// 10,000 sessions is encoded on each request instead of being kept
// encoded. What the fast path does not cover (a string that needs
// escaping, a year outside 0…9999, usage with members this version does
// not know) goes through encoding/json itself.
func appendSummaryJSON(b []byte, sum *Summary) ([]byte, error) {
	if !plainSummary(sum) {
		data, err := json.Marshal(sum)
		return append(b, data...), err
	}
	b = appendField(b, `{"id":`, sum.ID)
	b = appendField(b, `,"title":`, sum.Title)
	if sum.Name != "" {
		b = appendField(b, `,"name":`, sum.Name)
	}
	b = appendField(b, `,"model":`, sum.Model)
	if sum.Cwd != "" {
		b = appendField(b, `,"cwd":`, sum.Cwd)
	}
	b = appendTime(append(b, `,"created_at":`...), sum.CreatedAt)
	b = appendTime(append(b, `,"updated_at":`...), sum.UpdatedAt)
	b = strconv.AppendBool(append(b, `,"archived":`...), sum.Archived)
	if sum.Pinned {
		b = append(b, `,"pinned":true`...)
	}
	if len(sum.Tags) > 0 {
		b = append(b, `,"tags":[`...)
		for i, t := range sum.Tags {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendField(b, "", t)
		}
		b = append(b, ']')
	}
	b = strconv.AppendInt(append(b, `,"messages":`...), int64(sum.Messages), 10)
	b = strconv.AppendInt(append(b, `,"threads":`...), int64(sum.Threads), 10)
	if sum.Failed {
		b = append(b, `,"failed":true`...)
	}
	if sum.Parent != "" {
		b = appendField(b, `,"parent":`, sum.Parent)
	}
	if sum.ParentTitle != "" {
		b = appendField(b, `,"parent_title":`, sum.ParentTitle)
	}
	if sum.Subagent {
		b = append(b, `,"subagent":true`...)
	}
	if sum.GoalBlocked {
		b = append(b, `,"goal_blocked":true`...)
	}
	if len(sum.Usage) > 0 {
		b = appendUsage(append(b, `,"usage":`...), sum.Usage)
	}
	if sum.Damaged != "" {
		b = appendField(b, `,"damaged":`, sum.Damaged)
	}
	return append(b, '}'), nil
}

// plainSummary reports whether the fast path encodes sum exactly.
func plainSummary(sum *Summary) bool {
	for _, s := range []string{sum.ID, sum.Title, sum.Name, sum.Model, sum.Cwd, sum.Parent, sum.ParentTitle, sum.Damaged} {
		if !plainString(s) {
			return false
		}
	}
	for _, t := range sum.Tags {
		if !plainString(t) {
			return false
		}
	}
	for _, t := range []time.Time{sum.CreatedAt, sum.UpdatedAt} {
		if y := t.Year(); y < 0 || y > 9999 {
			return false
		}
	}
	for _, u := range sum.Usage {
		if !plainString(u.Model) || u.Usage.Unknown != nil {
			return false
		}
	}
	return true
}

// plainString reports whether s is valid UTF-8 that encoding/json writes
// as it is between quotes: no control character, quote, backslash, the
// three it escapes for HTML (<, >, &) or the two line separators it
// escapes for JavaScript (U+2028, U+2029).
func plainString(s string) bool {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c < 0x20 || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
				return false
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 || r == '\u2028' || r == '\u2029' {
			return false
		}
		i += size
	}
	return true
}

// appendField appends key and the plain string s, quoted.
func appendField(b []byte, key, s string) []byte {
	b = append(b, key...)
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

func appendTime(b []byte, t time.Time) []byte {
	b = append(b, '"')
	b = t.AppendFormat(b, time.RFC3339Nano)
	return append(b, '"')
}

func appendUsage(b []byte, usage []ModelUsage) []byte {
	b = append(b, '[')
	for i := range usage {
		if i > 0 {
			b = append(b, ',')
		}
		u := &usage[i].Usage
		b = appendField(b, `{"model":`, usage[i].Model)
		b = strconv.AppendInt(append(b, `,"usage":{"input_tokens":`...), u.InputTokens, 10)
		b = strconv.AppendInt(append(b, `,"output_tokens":`...), u.OutputTokens, 10)
		b = appendNonZero(b, `,"cache_read_input_tokens":`, u.CacheReadInputTokens)
		b = appendNonZero(b, `,"cache_creation_input_tokens":`, u.CacheCreationInputTokens)
		b = appendNonZero(b, `,"cache_creation_5m_input_tokens":`, u.CacheCreation5mInputTokens)
		b = appendNonZero(b, `,"cache_creation_1h_input_tokens":`, u.CacheCreation1hInputTokens)
		b = append(b, `,"Unknown":null}}`...)
	}
	return append(b, ']')
}

func appendNonZero(b []byte, key string, n int64) []byte {
	if n == 0 {
		return b
	}
	return strconv.AppendInt(append(b, key...), n, 10)
}
