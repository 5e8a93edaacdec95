package mycotest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// RequestTimeout bounds one ordinary request; streams have no timeout of
// their own, only their context's.
const RequestTimeout = 30 * time.Second

// Client talks to one myco with its token, as a script would.
type Client struct {
	Base, Token string
	HTTP        *http.Client
}

// NewClient returns a client of the server at base (http://127.0.0.1:PORT).
func NewClient(base, token string) *Client {
	tr := &http.Transport{MaxIdleConns: 64, MaxIdleConnsPerHost: 64, IdleConnTimeout: time.Minute}
	return &Client{Base: base, Token: token, HTTP: &http.Client{Transport: tr}}
}

// Request is a request for path with the token and, when body is not
// nil, body as JSON.
func (c *Client) Request(ctx context.Context, method, path string, body any) (*http.Request, error) {
	var r io.Reader
	if body != nil {
		data, err := json.Marshal(body)
		if err != nil {
			return nil, err
		}
		r = bytes.NewReader(data)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.Base+path, r)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+c.Token)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	return req, nil
}

// StatusError is an answer with another status than the one wanted.
type StatusError struct {
	Method, Path string
	Status, Want int
	Body         string
}

func (e *StatusError) Error() string {
	return fmt.Sprintf("%s %s: status %d, want %d: %s", e.Method, e.Path, e.Status, e.Want, e.Body)
}

// Do sends a request and reads the whole answer, which must have status
// want; otherwise the error is a *StatusError.
func (c *Client) Do(ctx context.Context, method, path string, body any, want int) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, RequestTimeout)
	defer cancel()
	req, err := c.Request(ctx, method, path, body)
	if err != nil {
		return nil, err
	}
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("%s %s: read answer: %w", method, path, err)
	}
	if resp.StatusCode != want {
		return data, &StatusError{Method: method, Path: path, Status: resp.StatusCode, Want: want, Body: strings.TrimSpace(string(data))}
	}
	return data, nil
}

// Get fetches path, which must answer 200.
func (c *Client) Get(ctx context.Context, path string) ([]byte, error) {
	return c.Do(ctx, http.MethodGet, path, nil, http.StatusOK)
}

// GetJSON fetches path and decodes its JSON answer into v.
func (c *Client) GetJSON(ctx context.Context, path string, v any) error {
	data, err := c.Get(ctx, path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("GET %s: %w", path, err)
	}
	return nil
}

// SendJSON sends body as JSON with method and decodes the answer, which
// must have status want, into v (unless v is nil).
func (c *Client) SendJSON(ctx context.Context, method, path string, body any, want int, v any) error {
	data, err := c.Do(ctx, method, path, body, want)
	if err != nil || v == nil {
		return err
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("%s %s: %w", method, path, err)
	}
	return nil
}

// PostJSON is SendJSON with POST.
func (c *Client) PostJSON(ctx context.Context, path string, body any, want int, v any) error {
	return c.SendJSON(ctx, http.MethodPost, path, body, want, v)
}
