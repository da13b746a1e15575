package llm

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"unicode/utf8"

	"skillet/harness/chat"
)

func TestHTMLErrorPagesCollapseToOneLineOfText(t *testing.T) {
	cases := []struct {
		name, body, want string
	}{
		{"nginx", "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx/1.25.3</center>\r\n</body>\r\n</html>\r\n",
			"502 Bad Gateway nginx/1.25.3"},
		{"title and different text", `<!DOCTYPE html><html><head><title>Access denied</title><style>body{color:red}</style>
<script>var secret = "do not show";</script></head><body><p>You   don&#39;t have
permission &amp; cannot   continue.</p></body></html>`,
			"Access denied — You don't have permission & cannot continue."},
		{"no title", "<html><body><h1>Service Unavailable</h1><p>Try later.</p></body></html>", "Service Unavailable Try later."},
		{"title only", "<html><head><title>Not Found</title></head><body></body></html>", "Not Found"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := apiError(http.StatusBadGateway, []byte(tc.body))
			if e.Message != tc.want {
				t.Errorf("message = %q, want %q", e.Message, tc.want)
			}
		})
	}
}

func TestHTMLErrorTextIsCapped(t *testing.T) {
	body := "<html><head><title>Error</title></head><body>" + strings.Repeat("<p>Ünïcode filler text.</p>\n", 200) + "</body></html>"
	msg := apiError(http.StatusInternalServerError, []byte(body)).Message
	if len(msg) > maxHTMLText+len("…") || !strings.HasSuffix(msg, "…") {
		t.Fatalf("message is %d bytes, want at most %d and a …: %q", len(msg), maxHTMLText, msg)
	}
	if !utf8.ValidString(msg) || strings.ContainsAny(msg, "<>\n") {
		t.Fatalf("not one line of text: %q", msg)
	}
	if !strings.HasPrefix(msg, "Error — Ünïcode filler text. Ünïcode") {
		t.Fatalf("message = %q", msg)
	}
}

func TestJSONAndPlainErrorsAreNotTakenForHTML(t *testing.T) {
	for body, want := range map[string]string{
		`{"error":{"message":"<b>bold</b> claim"}}`: "<b>bold</b> claim",
		"upstream connect error <not a tag>":        "upstream connect error <not a tag>",
	} {
		if got := apiError(400, []byte(body)).Message; got != want {
			t.Errorf("%s: message = %q, want %q", body, got, want)
		}
	}
}

// The /model picker lists models through Models: an HTML page there is one
// line too.
func TestModelsHTMLErrorIsOneLine(t *testing.T) {
	api := newFakeAPI(t, func(w http.ResponseWriter, r *http.Request, n int) {
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusForbidden)
		w.Write([]byte("<html><head><title>403 Forbidden</title></head>\n<body>\n<h1>Forbidden</h1>\n<p>Your client does not have permission.</p>\n</body></html>"))
	})
	_, err := api.client(t, testKey).Models(context.Background())
	var ae *chat.APIError
	if !errors.As(err, &ae) {
		t.Fatalf("err = %v (%T), want *chat.APIError", err, err)
	}
	if ae.Message != "403 Forbidden — Forbidden Your client does not have permission." {
		t.Fatalf("message = %q", ae.Message)
	}
	if strings.Contains(err.Error(), "\n") {
		t.Fatalf("error spans lines: %q", err.Error())
	}
}
