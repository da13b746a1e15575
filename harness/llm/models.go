package llm

import (
	"context"
	"errors"
	"fmt"
	"sort"

	openai "github.com/sashabaranov/go-openai"

	"skillet/harness/chat"
)

// Models lists the ids of the models the API offers (GET {BaseURL}/models),
// sorted, for a model picker. The whole call is bounded by the first-byte
// timeout.
func (c *Client) Models(ctx context.Context) ([]string, error) {
	cfg := openai.DefaultConfig(c.key)
	cfg.BaseURL = c.cfg.BaseURL
	cfg.HTTPClient = c.http
	parent := ctx
	if d := c.cfg.FirstByteTimeout; d > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, d, &TimeoutError{Which: TimeoutFirstByte, After: d})
		defer cancel()
	}
	list, err := openai.NewClientWithConfig(cfg).ListModels(ctx)
	if err != nil {
		return nil, c.redact(c.modelsError(parent, ctx, err))
	}
	ids := make([]string, 0, len(list.Models))
	for _, m := range list.Models {
		if m.ID != "" {
			ids = append(ids, m.ID)
		}
	}
	sort.Strings(ids)
	return ids, nil
}

// modelsError turns go-openai's errors into the client's own kinds.
func (c *Client) modelsError(parent, ctx context.Context, err error) error {
	if perr := parent.Err(); perr != nil {
		return perr
	}
	var te *TimeoutError
	if errors.As(context.Cause(ctx), &te) || errors.As(err, &te) {
		return te
	}
	var oe *openai.APIError
	if errors.As(err, &oe) {
		e := &chat.APIError{Status: oe.HTTPStatusCode, Message: oe.Message, Type: oe.Type}
		if oe.Code != nil {
			e.Code = fmt.Sprint(oe.Code)
		}
		return e
	}
	var re *openai.RequestError
	if errors.As(err, &re) {
		return apiError(re.HTTPStatusCode, re.Body)
	}
	return fmt.Errorf("list models: %w", err)
}
