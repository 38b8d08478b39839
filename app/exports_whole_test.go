package app

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
)

// The tests read an export or a person's data whole, decoded from what the
// download writes.

// ExportAccount returns the account's export whole, as
// WriteAccountExport writes it.
func (s *Rooms) ExportAccount(ctx context.Context, actorID int64, slug string) (*AccountExport, error) {
	var buf bytes.Buffer
	if err := s.WriteAccountExport(ctx, actorID, slug, &buf); err != nil {
		return nil, err
	}
	var out AccountExport
	if err := json.Unmarshal(buf.Bytes(), &out); err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	return &out, nil
}

// MemberData returns the signed-in person's data whole, as
// WriteMemberData writes it.
func (s *Rooms) MemberData(ctx context.Context, userID int64) (*MemberData, error) {
	var buf bytes.Buffer
	if err := s.WriteMemberData(ctx, userID, &buf); err != nil {
		return nil, err
	}
	var out MemberData
	if err := json.Unmarshal(buf.Bytes(), &out); err != nil {
		return nil, fmt.Errorf("my data: %w", err)
	}
	return &out, nil
}
