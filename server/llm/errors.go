package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"syscall"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/openai/openai-go/v3"
)

// errIncomplete is a stream that ended cleanly before the provider said the
// message was complete: a proxy or server that gave up mid-answer.
var errIncomplete = errors.New("stream ended before the message was complete")

// retryableStatus reports whether an HTTP status is transient: timeouts,
// conflicts, rate limits, server errors and Anthropic's 529 (overloaded).
func retryableStatus(status int) bool {
	return status == 408 || status == 409 || status == 429 || status >= 500
}

// classify turns a failed call into an *Error. status is the HTTP status
// the provider's SDK reported, 0 when there is none; started says whether
// any event of the stream arrived.
func classify(ctx context.Context, provider string, err error, status int, started bool) *Error {
	switch {
	case ctx.Err() != nil:
		// Stopped by the caller (the tab's stop, a deadline): never retried.
		return &Error{Provider: provider, Err: fmt.Errorf("request stopped: %w", ctx.Err())}
	case status != 0:
		return &Error{Provider: provider, Status: status, Retryable: retryableStatus(status), Err: err}
	case isDecodeError(err):
		// A server that sends garbage will most likely send it again.
		return &Error{Provider: provider, Err: fmt.Errorf("malformed stream: %w", err)}
	case started || brokenConnection(err):
		return &Error{Provider: provider, Retryable: true, Err: fmt.Errorf("stream broken: %w", err)}
	}
	return &Error{Provider: provider, Err: err}
}

// brokenConnection reports whether err is a connection that dropped or
// timed out, as opposed to one that could not be opened at all (a refused
// connection means nothing listens there, and retrying will not change it).
func brokenConnection(err error) bool {
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) {
		return true
	}
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

func isDecodeError(err error) bool {
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	return errors.As(err, &syntax) || errors.As(err, &typ)
}

// Kinds of failure, as the document and the page name them.
const (
	FailAuth        = "auth"         // 401 or 403: the provider refused the key
	FailRateLimited = "rate_limited" // 429: too many requests for now
	FailOverloaded  = "overloaded"   // 529 or 503: the provider is busy
	FailUnreachable = "unreachable"  // nothing answered: refused, or no such host
	FailNoProvider  = "no_provider"  // the model's provider is not configured
	FailProvider    = "provider"     // any other answer of the provider
	FailOther       = "other"        // anything else (a broken stream, a turn limit)
)

// Failure is a failed call said in words a person can act on: what
// happened, and where the fix is.
type Failure struct {
	Kind string
	// Message is one or two sentences: what failed and what to do.
	Message string
	// Reason is Message's first part, what failed, without the advice:
	// for a line that says myco is retrying.
	Reason string
	// Details are the error as the SDK and the provider word it (status
	// line, URL, request ID, body): for a fold, never the main text.
	Details  string
	Status   int    // the provider's HTTP status, 0 when there was none
	Provider string // "" when the failure did not come from a provider
}

// Explain says why err failed, for the person rather than for a log: a
// refused key names the variable it is read from (keyEnv gives it for a
// provider, "" when the provider sends none; nil knows none), a busy
// provider says to wait, an unreachable one names the URL. A failure that
// was retried (Retried) says how often.
func Explain(err error, keyEnv func(provider string) string) Failure {
	if errors.Is(err, ErrNoProvider) {
		return Failure{Kind: FailNoProvider, Message: err.Error(), Reason: err.Error()}
	}
	var e *Error
	if !errors.As(err, &e) {
		return Failure{Kind: FailOther, Message: err.Error(), Reason: err.Error()}
	}
	f := Failure{Kind: FailProvider, Status: e.Status, Provider: e.Provider, Details: scrubURLs(err.Error())}
	again := retriedAdvice(err)
	var silence *SilentError
	switch {
	case e.Status == http.StatusUnauthorized || e.Status == http.StatusForbidden:
		f.Kind, f.Reason = FailAuth, refusedKey(e.Provider, keyEnv)
	case e.Status == http.StatusTooManyRequests:
		f.Kind = FailRateLimited
		f.Reason = fmt.Sprintf("The provider is rate-limiting requests (%s, %d).", e.Provider, e.Status)
		f.Message = f.Reason + " " + again("try again in a minute.")
	case e.Status == 529 || e.Status == http.StatusServiceUnavailable:
		f.Kind = FailOverloaded
		f.Reason = fmt.Sprintf("The provider is overloaded (%s, %d).", e.Provider, e.Status)
		f.Message = f.Reason + " " + again("try again in a minute.")
	case e.Status != 0:
		f.Reason = fmt.Sprintf("%s answered %d: %s", e.Provider, e.Status, providerMessage(e))
	case errors.As(err, &silence):
		f.Kind = FailOther
		f.Reason = fmt.Sprintf("The model stopped answering (%s sent nothing for %s).", e.Provider, silence.Idle)
		f.Message = f.Reason + " " + again("try again, and check the provider's status if it happens again.")
	case e.Retryable && (errors.Is(err, errIncomplete) || strings.HasPrefix(e.Err.Error(), "stream broken")):
		f.Kind = FailOther
		f.Reason = fmt.Sprintf("The answer from %s was cut off: the connection broke.", e.Provider)
		f.Message = f.Reason + " " + again("try again.")
	default:
		if where, reason, ok := unreachable(e.Err); ok {
			f.Kind, f.Reason = FailUnreachable, fmt.Sprintf("Could not reach %s: %s. Is the server running?", where, reason)
		} else {
			f.Kind, f.Reason = FailOther, e.Error()
		}
	}
	if f.Message == "" {
		f.Message = f.Reason
	}
	if f.Details == f.Message {
		f.Details = ""
	}
	return f
}

// urlSecrets are the parts of a URL in an error that may hold a secret:
// its user and password, and its query.
var urlSecrets = regexp.MustCompile(`(https?://)[^/\s"@]*@|\?[^\s"]*`)

// scrubURLs drops the credentials and queries of the URLs in s, for
// details a person may paste into a bug report.
func scrubURLs(s string) string {
	return urlSecrets.ReplaceAllStringFunc(s, func(m string) string {
		if strings.HasPrefix(m, "?") {
			return ""
		}
		return m[:strings.Index(m, "//")+2]
	})
}

// Retried wraps the final failure of a call that was tried again n times
// (the turn's retry policy), so that Explain can say so. n == 0 gives err.
func Retried(err error, n int) error {
	if err == nil || n == 0 {
		return err
	}
	return &retriedError{n: n, err: err}
}

type retriedError struct {
	n   int
	err error
}

func (r *retriedError) Error() string { return fmt.Sprintf("%v (retried %s)", r.err, times(r.n)) }
func (r *retriedError) Unwrap() error { return r.err }

// retriedAdvice returns the advice of a transient failure: what myco did
// already, then what the person can do.
func retriedAdvice(err error) func(advice string) string {
	var r *retriedError
	return func(advice string) string {
		if errors.As(err, &r) {
			return "myco retried " + times(r.n) + "; " + advice
		}
		return strings.ToUpper(advice[:1]) + advice[1:]
	}
}

func times(n int) string {
	switch n {
	case 1:
		return "once"
	case 2:
		return "twice"
	}
	return fmt.Sprintf("%d times", n)
}

// refusedKey is the message of a key the provider refused: which
// variable held it, and the setting that names that variable.
func refusedKey(provider string, keyEnv func(string) string) string {
	env := ""
	if keyEnv != nil {
		env = keyEnv(provider)
	}
	if env == StoredKey {
		return fmt.Sprintf("The API key was refused by %s. It is the key stored in the profile: replace it on the Settings page (/settings).", provider)
	}
	if env == "" && provider == ProviderAnthropic {
		env = defaultAnthropicKeyEnv
	}
	if env == "" {
		return fmt.Sprintf("The API key was refused by %s. No key is sent: name the variable that holds it in settings (providers.%s.api_key_env).", provider, provider)
	}
	return fmt.Sprintf("The API key was refused by %s. It is read from %s (settings providers.%s.api_key_env).", provider, env, provider)
}

// providerMessage is the message in the provider's error body, else the
// error as the SDK words it.
func providerMessage(e *Error) string {
	var a *anthropic.Error
	if errors.As(e.Err, &a) && a.Message != "" {
		return a.Message
	}
	var o *openai.Error
	if errors.As(e.Err, &o) && o.Message != "" {
		return o.Message
	}
	return e.Err.Error()
}

// unreachable reports whether err is a connection that could not be
// opened (refused, or a name that does not resolve), with the URL it was
// for and why in a few words.
func unreachable(err error) (where, reason string, ok bool) {
	var dns *net.DNSError
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		reason = "connection refused"
	case errors.As(err, &dns):
		reason = "no such host " + dns.Name
		if !dns.IsNotFound {
			reason = "cannot resolve " + dns.Name
		}
	default:
		return "", "", false
	}
	where = "the provider"
	var u *url.Error
	if errors.As(err, &u) {
		where = u.URL
		if p, perr := url.Parse(u.URL); perr == nil {
			p.RawQuery, p.Fragment, p.User = "", "", nil
			where = p.String()
		}
	}
	return where, reason, true
}

// StoredKey is what KeyEnv says of a provider whose key is stored in the
// profile (the Settings page) rather than read from a variable.
const StoredKey = "@stored"

// KeyEnv names the environment variable provider's key is read from, ""
// when it sends none, StoredKey when the key is stored in the profile.
func (r *Registry) KeyEnv(provider string) string {
	if r.stored[provider] {
		return StoredKey
	}
	return r.keyEnv[provider]
}
