package app

import (
	"bufio"
	"encoding/json"
	"io"
)

// jsonOut writes one JSON object to w a field at a time, and an array
// field an element at a time, laid out byte for byte as
// json.MarshalIndent(v, "", "  ") lays out the whole object: a download
// of an account's twenty thousand rooms is never whole in memory, only
// the element being written. The first error sticks; close returns it.
type jsonOut struct {
	w      *bufio.Writer
	fields int // fields written
	items  int // elements of the open array
	err    error
}

func newJSONOut(w io.Writer) *jsonOut {
	o := &jsonOut{w: bufio.NewWriter(w)}
	o.put("{")
	return o
}

func (o *jsonOut) put(s string) {
	if o.err == nil {
		_, o.err = o.w.WriteString(s)
	}
}

// value writes v indented, its lines after the first prefixed.
func (o *jsonOut) value(v any, prefix string) {
	if o.err != nil {
		return
	}
	b, err := json.MarshalIndent(v, prefix, "  ")
	if err != nil {
		o.err = err
		return
	}
	_, o.err = o.w.Write(b)
}

func (o *jsonOut) key(name string) {
	if o.fields > 0 {
		o.put(",")
	}
	o.fields++
	k, _ := json.Marshal(name)
	o.put("\n  " + string(k) + ": ")
}

// field writes the field name with the value v.
func (o *jsonOut) field(name string, v any) {
	o.key(name)
	o.value(v, "  ")
}

// array opens the array field name; item writes its elements, end closes
// it.
func (o *jsonOut) array(name string) {
	o.key(name)
	o.put("[")
	o.items = 0
}

func (o *jsonOut) item(v any) {
	if o.items > 0 {
		o.put(",")
	}
	o.items++
	o.put("\n    ")
	o.value(v, "    ")
}

func (o *jsonOut) end() {
	if o.items > 0 {
		o.put("\n  ")
	}
	o.put("]")
}

// close ends the object and flushes what is buffered.
func (o *jsonOut) close() error {
	if o.fields > 0 {
		o.put("\n")
	}
	o.put("}")
	if o.err == nil {
		o.err = o.w.Flush()
	}
	return o.err
}
