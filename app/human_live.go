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
