// Package form turns a subject schema into an HTML form's fields and a
// submitted form back into terms, for a person who answers in the browser;
// it also reads the settings' notification forms (notify.go).
//
// It only translates: it never decides whether terms are valid (package
// negotiation does, and its messages are attached to the field they name).
// What a browser cannot send well-formed (a moment without its time zone, a
// number that is not one) is reported here, next to the field, in the same
// one-line style. Nothing is coerced or trimmed.
package form
