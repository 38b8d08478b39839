package app

import "github.com/taasky/taasky/negotiation"

// SeatSecrets are the secrets of one party's seat as its parties row keeps
// them, and the room token they stand for.
type SeatSecrets struct {
	// Token is the room token for the seat's agent; it is never stored.
	Token string
	// TokenHash and TokenSalt are parties.token_hash and token_salt: the
	// token is found by its hash, and derived again from its salt.
	TokenHash, TokenSalt []byte
	// LimitsSealed is parties.limits_enc: the party's limits, encrypted and
	// bound to the room and side.
	LimitsSealed []byte
}

// NewSeatSecrets mints the secrets of side's seat in room roomID with the
// service's keys, with the given limits (a JSON object, "{}" for none), as
// opening and joining do. It is for tools that write rooms in bulk without
// the use cases (taasky bench seeds rooms with COPY), so that the service
// reads and replays those rooms as its own.
func (s *Rooms) NewSeatSecrets(roomID int64, side negotiation.Side, limits []byte) SeatSecrets {
	salt := randomBytes(16)
	token := s.roomToken(roomID, string(side), salt)
	return SeatSecrets{Token: token, TokenHash: secretHash(token), TokenSalt: salt,
		LimitsSealed: s.sealLimits(roomID, string(side), limits)}
}
