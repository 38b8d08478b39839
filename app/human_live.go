package app

import "strconv"

// RoomChannel is the PostgreSQL channel every room change is announced on
// (with the room id as text) once its transaction committed (announcer).
const RoomChannel = "taasky_room"

// RoomChanges is the Channel that calls changed with the id of each room
// that changed, and with 0 whenever the listener (re)connects: any room
// may have changed meanwhile.
func RoomChanges(changed func(roomID int64)) Channel {
	return Channel{
		Name: RoomChannel,
		Notified: func(payload string) {
			if id, err := strconv.ParseInt(payload, 10, 64); err == nil && id > 0 {
				changed(id)
			}
		},
		Heard: func(listening bool) {
			if listening {
				changed(0)
			}
		},
	}
}

// AccessChannel is the PostgreSQL channel that says whose access may have
// changed (migration 00038's triggers), once its transaction committed: a
// user's id (a membership of theirs added, removed or given another role,
// their sessions ended, they erased, a seat of theirs handed to nobody,
// their account marked for deletion), or "" for everyone.
const AccessChannel = "taasky_access"

// AccessChanges is the Channel that calls changed with the id of each user
// whose access may have changed, and with 0 for everyone: on "", and
// whenever the listener (re)connects (a notification may have been lost
// meanwhile).
func AccessChanges(changed func(userID int64)) Channel {
	return Channel{
		Name: AccessChannel,
		Notified: func(payload string) {
			if payload == "" {
				changed(0)
			} else if id, err := strconv.ParseInt(payload, 10, 64); err == nil && id > 0 {
				changed(id)
			}
		},
		Heard: func(listening bool) {
			if listening {
				changed(0)
			}
		},
	}
}
