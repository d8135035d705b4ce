package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"time"
)

// checkTimeout bounds CheckServer: a server that answers at all answers
// its model list at once.
const checkTimeout = 10 * time.Second

// ServerCheck is what CheckServer found: whether the server at the base URL
// is reachable and speaks the API, in one line, with a hint when it does
// not (or does not list the model).
type ServerCheck struct {
	OK   bool
	Text string
	Hint string
}

// CheckServer asks the server for its model list (GET <base>/models) and
// says what that shows: unreachable, a web page instead of the API
// (KindNotAPI's case), a key refused, no model list, or an
// OpenAI-compatible server that does or does not list model. It is
// /doctor's check of the server.
func CheckServer(ctx context.Context, cfg ProbeConfig, model string) ServerCheck {
	base := strings.TrimRight(cfg.BaseURL, "/")
	if base == "" {
		base = DefaultBaseURL
	}
	client := cfg.HTTPClient
	if client == nil {
		client = http.DefaultClient
	}
	ctx, cancel := context.WithTimeout(ctx, checkTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/models", nil)
	if err != nil {
		return ServerCheck{Text: fmt.Sprintf("%s is no URL: %v", base, err), Hint: "want e.g. http://localhost:11434/v1"}
	}
	if cfg.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+cfg.APIKey)
	}
	resp, err := client.Do(req)
	if err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			err = fmt.Errorf("no answer within %v", checkTimeout)
		}
		return ServerCheck{Text: fmt.Sprintf("%s is not reachable: %v", base, err), Hint: "is the server running, at this address?"}
	}
	defer resp.Body.Close()
	body := readHead(resp.Body, probeBodyLimit)
	_, _ = io.Copy(io.Discard, resp.Body)
	return judgeModels(base, model, resp, body)
}

// judgeModels reads the answer to GET <base>/models.
func judgeModels(base, model string, resp *http.Response, body []byte) ServerCheck {
	if page, ok := webPage(resp.Header.Get("Content-Type"), body); ok {
		return ServerCheck{Text: fmt.Sprintf("%s answers with %s, not an OpenAI-compatible API", base, page), Hint: v1Hint(base)}
	}
	switch {
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		return ServerCheck{Text: fmt.Sprintf("%s refuses the API key (%d)", base, resp.StatusCode), Hint: "check the key's variable (OPENAI_API_KEY, or api_key_env)"}
	case resp.StatusCode != http.StatusOK:
		return ServerCheck{Text: fmt.Sprintf("%s answers GET /models with %d %s", base, resp.StatusCode, http.StatusText(resp.StatusCode)), Hint: v1Hint(base)}
	}
	var list struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if json.Unmarshal(body, &list) != nil || list.Data == nil {
		return ServerCheck{Text: fmt.Sprintf("%s answers GET /models without a model list", base), Hint: v1Hint(base)}
	}
	ids := make([]string, 0, len(list.Data))
	for _, m := range list.Data {
		ids = append(ids, m.ID)
	}
	n := fmt.Sprintf("%d models", len(ids))
	if len(ids) == 1 {
		n = "1 model"
	}
	if model != "" && !slices.Contains(ids, model) {
		return ServerCheck{Text: fmt.Sprintf("%s is OpenAI-compatible (%s), but does not list %s", base, n, model),
			Hint: "/model lists the models it offers; --model or model = … chooses one"}
	}
	return ServerCheck{OK: true, Text: fmt.Sprintf("%s is OpenAI-compatible (%s, %s among them)", base, n, model)}
}

// v1Hint is the advice for a base URL whose answers are not the API's.
func v1Hint(base string) string {
	if !strings.HasSuffix(base, "/v1") {
		return "is /v1 missing? try " + base + "/v1"
	}
	return "is this an OpenAI-compatible server's API?"
}
