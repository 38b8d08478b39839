package negotiation

import "sync"

// SchemaCache keeps parsed schemas by their JSON, for restoring rooms
// without parsing the same schemas again on every move. A Schema never
// changes once parsed, so one may be shared. Safe for concurrent use. The
// zero value is ready.
type SchemaCache struct {
	m sync.Map // string(JSON) → *Schema
}

// Parse returns the schema for data, parsing it only the first time.
func (c *SchemaCache) Parse(data []byte) (*Schema, error) {
	if c == nil {
		s, _, err := ParseSchema(data)
		return s, err
	}
	if s, ok := c.m.Load(string(data)); ok {
		return s.(*Schema), nil
	}
	s, _, err := ParseSchema(data)
	if err != nil {
		return nil, err
	}
	c.m.Store(string(data), s)
	return s, nil
}
