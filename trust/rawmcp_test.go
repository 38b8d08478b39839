package trust

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// rawAnswer is what one raw HTTP request to /mcp got.
type rawAnswer struct {
	status int
	header http.Header
	body   string
	msg    string // the one line a caller reads: a tool error, a JSON-RPC error, or the HTTP error body
	ok     bool   // a tool result that is not an error
}

// rawPost sends body to path with the headers an MCP client sends (key
// unless "" , plus extra) and reads the answer.
func (s *stack) rawPost(path, key string, body []byte, extra map[string]string) rawAnswer {
	s.t.Helper()
	req, err := http.NewRequestWithContext(s.ctx, http.MethodPost, s.base+path, bytes.NewReader(body))
	if err != nil {
		s.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	for k, v := range extra {
		if v == "" {
			req.Header.Del(k)
		} else {
			req.Header.Set(k, v)
		}
	}
	return s.send(req)
}

func (s *stack) send(req *http.Request) rawAnswer {
	s.t.Helper()
	resp, err := (&http.Client{Transport: transport}).Do(req)
	if err != nil {
		s.t.Fatalf("%s %s: %v", req.Method, req.URL.Path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	a := rawAnswer{status: resp.StatusCode, header: resp.Header, body: string(b)}
	a.msg, a.ok = readRPC(b)
	return a
}

// readRPC reads a JSON-RPC answer (or an HTTP error body) down to the line
// a caller reads.
func readRPC(b []byte) (string, bool) {
	var rpc struct {
		Result *struct {
			IsError bool `json:"isError"`
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		} `json:"result"`
		Error *struct {
			Message string `json:"message"`
		} `json:"error"`
		Err string `json:"error_"`
	}
	if json.Unmarshal(b, &rpc) == nil {
		switch {
		case rpc.Error != nil:
			return rpc.Error.Message, false
		case rpc.Result != nil && rpc.Result.IsError && len(rpc.Result.Content) > 0:
			return rpc.Result.Content[0].Text, false
		case rpc.Result != nil:
			return "", true
		}
	}
	var plain struct {
		Error string `json:"error"`
	}
	if json.Unmarshal(b, &plain) == nil && plain.Error != "" {
		return plain.Error, false
	}
	return strings.TrimSpace(string(b)), false
}

// toolCall is the JSON-RPC body of a tools/call with raw arguments.
func toolCall(tool string, args []byte) []byte {
	return fmt.Appendf(nil, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, tool, args)
}
