package app

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"slices"
	"strconv"
	"time"

	"github.com/taasky/taasky/negotiation"
)

// Limit marks: what a join keeps of each side's limit on each field the
// two schemas share (negotiation.WithheldNoDeal says why), to compare it
// with the limits of the next rooms between the same two accounts without
// opening the earlier rooms' limits. A mark is an HMAC-SHA256 of the
// limit's canonical text (negotiation.LimitText), of the pair of accounts
// (the same limit between other accounts is another mark, so marks say
// nothing across pairs) and of the field, under a key derived from the
// addresses' hash key (emailKeys, and so from SECRET_KEY): whoever holds
// the database or a backup cannot test a guess of a limit against it.
// `taasky secret-key rotate` keeps the previous addresses' key
// (retired_keys), so the marks kept before a rotation are still found
// after it: a join makes its marks under every key it has, keeps the
// current one's and compares them all.

// limitMarkKeyOf is the key of the marks derived from an addresses' key.
func limitMarkKeyOf(emailKey []byte) []byte { return subkey(emailKey, "limit-mark") }

// limitMark is the mark of a limit's text between accounts lo and hi.
func limitMark(key []byte, lo, hi int64, text []byte) []byte {
	m := hmac.New(sha256.New, key)
	m.Write(strconv.AppendInt(strconv.AppendInt([]byte("limit-mark\x00"), lo, 10), hi, 10))
	m.Write([]byte{0})
	m.Write(text)
	return m.Sum(nil)
}

// pair is a pair of accounts, the smaller id first.
func pair(a, b int64) (lo, hi int64) {
	if a <= b {
		return a, b
	}
	return b, a
}

// withholdNoDeal applies the rule of a join between the opener's account
// and the joiner's to next (the joined room, its NoDeal as computed from
// both limits): it reads the marks the pair's joins kept within
// negotiation.NoDealMarksKept, leaves out of next.NoDeal the verdicts the
// rule withholds, and returns the write that keeps this join's marks (to
// fold into the room's UPDATE); none when no shared field has a limit.
func (s *Rooms) withholdNoDeal(ctx context.Context, q querier, roomID, opener, joiner int64, next *negotiation.Room, now time.Time) ([]foldedWrite, error) {
	fields := next.NoDealFields()
	if len(fields) == 0 {
		return nil, nil
	}
	lo, hi := pair(opener, joiner)
	before, err := selectLimitMarks(ctx, q, lo, hi, opener, now.Add(-negotiation.NoDealMarksKept))
	if err != nil {
		return nil, err
	}
	keys := make([][]byte, len(s.emailKey))
	for i, k := range s.emailKey {
		keys[i] = limitMarkKeyOf(k)
	}
	marks := make([]negotiation.FieldMarks, len(fields))
	for i, f := range fields {
		marks[i].Key = f.Key
		for side := range 2 {
			for _, k := range keys {
				marks[i].Marks[side] = append(marks[i].Marks[side], limitMark(k, lo, hi, f.Limits[side]))
			}
		}
	}
	withheld := negotiation.WithheldNoDeal(marks, before)
	next.WithholdNoDeal(withheld)
	names := make([]string, len(fields))
	marksLo, marksHi := make([][]byte, len(fields)), make([][]byte, len(fields))
	told := make([]bool, len(fields))
	for i, m := range marks {
		names[i], told[i] = m.Key, !slices.Contains(withheld, m.Key)
		marksLo[i], marksHi[i] = m.Marks[0][0], m.Marks[1][0]
		if opener != lo {
			marksLo[i], marksHi[i] = marksHi[i], marksLo[i]
		}
	}
	return []foldedWrite{insertLimitMarks(lo, hi, roomID, names, marksLo, marksHi, told, now)}, nil
}
