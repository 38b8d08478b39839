package negotiation

// RoundsShown is how many entries of a room's history (moves and applied
// decisions, latest last) a read shows unless the whole history is asked
// for: the latest, the move or answer that made the room what it is, which
// is what the next move answers. The terms on the table are shown apart,
// whole, whatever the window; an agent knows its own moves.
const RoundsShown = 1

// Window is the index of the first of n history entries a read shows:
// the latest RoundsShown, or all of them with history. The entries before
// it are counted in the read (earlier_rounds), never dropped silently.
func Window(n int, history bool) int {
	if history || n <= RoundsShown {
		return 0
	}
	return n - RoundsShown
}
