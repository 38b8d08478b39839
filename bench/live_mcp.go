package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
)

// rawMCP calls Taasky's tools with one JSON-RPC POST each, as any MCP
// client does once initialized: the server is stateless (no session to
// keep), so a thousand agents waiting in negotiation_read cost the bench a
// connection each and no go-sdk session.
type rawMCP struct {
	client *http.Client
	base   string // http://host:port
}

type rpcAnswer struct {
	Result *struct {
		StructuredContent json.RawMessage `json:"structuredContent"`
		IsError           bool            `json:"isError"`
		Content           []struct {
			Text string `json:"text"`
		} `json:"content"`
	} `json:"result"`
	Error *struct {
		Message string `json:"message"`
	} `json:"error"`
}

// call calls tool as the agent with key, in account slug, and decodes the
// structured result into out (when not nil).
func (m *rawMCP) call(ctx context.Context, slug, key, tool string, args any, out any) error {
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call",
		"params": map[string]any{"name": tool, "arguments": args}})
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, "POST", m.base+"/mcp/"+slug, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := m.client.Do(req)
	if err != nil {
		return fmt.Errorf("%s: %w", tool, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return fmt.Errorf("%s: %w", tool, err)
	}
	if resp.StatusCode != 200 {
		return fmt.Errorf("%s: %d %s", tool, resp.StatusCode, bytes.TrimSpace(b))
	}
	var a rpcAnswer
	if err := json.Unmarshal(b, &a); err != nil {
		return fmt.Errorf("%s: the answer is not JSON-RPC: %w", tool, err)
	}
	switch {
	case a.Error != nil:
		return fmt.Errorf("%s: %s", tool, a.Error.Message)
	case a.Result == nil:
		return fmt.Errorf("%s: an answer with no result", tool)
	case a.Result.IsError:
		text := ""
		if len(a.Result.Content) > 0 {
			text = a.Result.Content[0].Text
		}
		return fmt.Errorf("%s refused: %s", tool, text)
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(a.Result.StructuredContent, out); err != nil {
		return fmt.Errorf("%s: decode the result: %w", tool, err)
	}
	return nil
}
