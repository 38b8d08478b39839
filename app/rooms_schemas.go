package app

import (
	"github.com/taasky/taasky/internal/gencache"
	"github.com/taasky/taasky/negotiation"
)

// schemaCache keeps parsed schemas by their JSON, for restoring rooms
// without parsing the same schemas again on every move
// (negotiation.RestoreWith). Its keys are whatever schemas agents open and
// join with, so it is bounded, in two generations like every cache here.
// A Schema never changes once parsed: one is shared by every room that
// has it.
type schemaCache struct {
	c *gencache.Cache[string, *negotiation.Schema]
}

// schemasKept is how many schemas a generation holds: a few kilobytes
// each as agents write them, at most negotiation.MaxSchemaBytes of JSON;
// schemasBytes bounds what they hold whatever their size.
const (
	schemasKept  = 1024
	schemasBytes = 16 << 20
)

func newSchemaCache(size int) schemaCache {
	// The JSON, and the parsed schema about twice as much.
	return schemaCache{gencache.NewBudget(size, schemasBytes, func(data string, _ *negotiation.Schema) int { return 3*len(data) + 1024 })}
}

// Parse returns the schema for data, parsing it only when the cache does
// not hold it.
func (c schemaCache) Parse(data []byte) (*negotiation.Schema, error) {
	if s, ok := c.c.Get(string(data)); ok {
		return s, nil
	}
	s, _, err := negotiation.ParseSchema(data)
	if err != nil {
		return nil, err
	}
	c.c.Put(string(data), s)
	return s, nil
}
