package demo

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"skillet/harness/chat"
)

// maxBody bounds a request body; long sessions with big tool results stay
// far below it.
const maxBody = 64 << 20

// fingerprint is the system_fingerprint of every reply, one more place that
// says what answered.
const fingerprint = "skillet-demo-rules"

// Options tune how the demo model is served.
type Options struct {
	// ChunkDelay is a pause before each streamed chunk, so a terminal can
	// show a reply arriving; zero sends at once.
	ChunkDelay time.Duration
}

// Handler serves the demo model with no delay: POST /v1/chat/completions
// (streaming and not) and GET /v1/models.
func Handler() http.Handler { return NewHandler(Options{}) }

// NewHandler serves the demo model with opts.
func NewHandler(opts Options) http.Handler {
	h := &handler{opts: opts}
	mux := http.NewServeMux()
	mux.HandleFunc("/v1/chat/completions", h.completions)
	mux.HandleFunc("/v1/models", h.models)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, fmt.Sprintf("the demo model serves /v1/chat/completions and /v1/models, not %s", r.URL.Path), "not_found")
	})
	return mux
}

// Server is the demo model listening on a loopback port.
type Server struct {
	// URL is the base URL to give a chat-completions client; it ends in /v1.
	URL string

	srv  *http.Server
	done chan struct{}
}

// Start serves the demo model on 127.0.0.1 at a free port.
func Start() (*Server, error) { return StartWith(Options{}) }

// StartWith serves the demo model on 127.0.0.1 at a free port with opts.
func StartWith(opts Options) (*Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("start demo model: listen on loopback: %w", err)
	}
	s := &Server{
		URL:  "http://" + ln.Addr().String() + "/v1",
		srv:  &http.Server{Handler: NewHandler(opts), ReadHeaderTimeout: 10 * time.Second},
		done: make(chan struct{}),
	}
	go func() {
		defer close(s.done)
		_ = s.srv.Serve(ln) // returns http.ErrServerClosed once Close runs
	}()
	return s, nil
}

// Close stops the server and cuts any reply still streaming.
func (s *Server) Close() error {
	err := s.srv.Close()
	<-s.done
	if err != nil {
		return fmt.Errorf("stop demo model: %w", err)
	}
	return nil
}

type handler struct {
	opts Options
}

// model is one entry of GET /v1/models.
type model struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Created int64  `json:"created"`
	OwnedBy string `json:"owned_by"`
}

func (h *handler) models(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet {
		w.Header().Set("Allow", http.MethodGet)
		writeError(w, http.StatusMethodNotAllowed, "use GET for /v1/models", "invalid_request_error")
		return
	}
	writeJSON(w, http.StatusOK, struct {
		Object string  `json:"object"`
		Data   []model `json:"data"`
	}{"list", []model{{ID: ModelName, Object: "model", OwnedBy: "skillet (rule-based demo, not an LLM)"}}})
}

func (h *handler) completions(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		writeError(w, http.StatusMethodNotAllowed, "use POST for /v1/chat/completions", "invalid_request_error")
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			writeError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("request body is over %d bytes", tooBig.Limit), "invalid_request_error")
			return
		}
		writeError(w, http.StatusBadRequest, fmt.Sprintf("read request body: %v", err), "invalid_request_error")
		return
	}
	var req chat.Request
	if err := json.Unmarshal(body, &req); err != nil {
		writeError(w, http.StatusBadRequest, fmt.Sprintf("request body is not a valid chat-completions request: %v", err), "invalid_request_error")
		return
	}
	if len(req.Messages) == 0 {
		writeError(w, http.StatusBadRequest, "messages: the request has no messages", "invalid_request_error")
		return
	}
	rep := newReply(&req)
	if req.Stream {
		h.stream(w, r, rep, req.StreamOptions != nil && req.StreamOptions.IncludeUsage)
		return
	}
	writeJSON(w, http.StatusOK, rep.completion())
}

// writeJSON sends v as the JSON body.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write([]byte(encode(v) + "\n")) // a write error means the client left
}

// writeError sends an OpenAI-style error body.
func writeError(w http.ResponseWriter, status int, msg, typ string) {
	type apiError struct {
		Message string  `json:"message"`
		Type    string  `json:"type"`
		Param   *string `json:"param"`
		Code    *string `json:"code"`
	}
	writeJSON(w, status, struct {
		Error apiError `json:"error"`
	}{apiError{Message: msg, Type: typ}})
}
