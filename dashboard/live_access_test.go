package dashboard

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/taasky/taasky/app"
)

// TestLiveStreamEndsWhenAccessIsLost: Carol, an admin of alpha, has a room
// of alpha open and her rooms list; she loses her access (removed, signed
// out everywhere, the account deleted, demoted to member). So does Alice,
// who deletes alpha (her own session is kept, but not the account's
// rooms). The change is
// made on the database, as another process would make it: this process
// hears of it only through PostgreSQL (taasky_access). Her streams end at
// once, each saying why, and a room change committed after her loss
// never reaches her, while it reaches Bob's stream on the same room.
// Before, her streams went on telling of every change until their life
// ended (up to 45 s) and the page kept showing the room.
func TestLiveStreamEndsWhenAccessIsLost(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		room, all string // why each stream ends ("": it goes on)
		lose      func(b *bundle, carol app.User) error
		owner     bool // the streams are Alice's, not Carol's
	}{
		{"removed", goneRemoved, goneRemoved, func(b *bundle, carol app.User) error {
			return b.accounts.RemoveMember(b.ctx, b.alice.ID, "alpha", carol.ID)
		}, false},
		{"signed out everywhere", goneSignedOut, goneSignedOut, func(b *bundle, carol app.User) error {
			return b.accounts.EndSessions(b.ctx, carol.ID)
		}, false},
		{"account deleted", goneRemoved, goneRemoved, func(b *bundle, carol app.User) error {
			_, err := b.rooms.DeleteAccount(b.ctx, b.alice.ID, "alpha", "alpha")
			return err
		}, false},
		{"account deleted by its owner", goneRemoved, goneRemoved, func(b *bundle, carol app.User) error {
			_, err := b.rooms.DeleteAccount(b.ctx, b.alice.ID, "alpha", "alpha")
			return err
		}, true},
		{"demoted", goneRemoved, "", func(b *bundle, carol app.User) error {
			return b.accounts.ChangeRole(b.ctx, b.alice.ID, "alpha", carol.ID, app.MemberRoleMember)
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			_, _, roomID, _, _ := b.askedBeta("Lost access", 3)
			if err := b.accounts.AddMemberAsOperator(b.ctx, "alpha", b.carol.Email, app.MemberRoleAdmin); err != nil {
				t.Fatal(err)
			}
			roomPath := fmt.Sprintf("/rooms/%d/events", roomID)
			// A room change, through the database as a move announces it.
			changed := func() {
				if _, err := b.pool.Exec(b.ctx, `SELECT pg_notify($1, $2)`, app.RoomChannel, fmt.Sprint(roomID)); err != nil {
					t.Fatal(err)
				}
			}
			// The room's changes so far are heard before Carol's streams
			// open: the announcements sent (Close waits for them), then
			// one more that Bob hears after them.
			b.rooms.Close()
			bob := b.openLive(t, b.bob, roomPath)
			changed()
			until(t, bob, "event: change")
			who := b.carol
			if tc.owner {
				who = b.alice
			}
			room, all := b.openLive(t, who, roomPath), b.openLive(t, who, "/events")
			if err := tc.lose(b, b.carol); err != nil {
				t.Fatal(err)
			}
			changed() // committed after the loss
			until(t, bob, "event: change")
			for _, s := range []struct {
				name string
				c    liveConn
				why  string
			}{{"room", room, tc.room}, {"rooms list", all, tc.all}} {
				if s.why == "" {
					continue
				}
				said := until(t, s.c, "0") // the stream's last, empty chunk
				if !strings.Contains(said, "event: gone\n") || !strings.Contains(said, `"why":"`+s.why+`"`) {
					t.Errorf("%s stream ended without saying %q:\n%s", s.name, s.why, said)
				}
				if strings.Contains(said, "event: change") {
					t.Errorf("%s stream told of a change after the access was lost:\n%s", s.name, said)
				}
			}
		})
	}
}

// until reads the stream's lines until one is want, within 10 s; it
// returns what it read.
func until(t *testing.T, s liveConn, want string) string {
	t.Helper()
	_ = s.conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	defer func() { _ = s.conn.SetReadDeadline(time.Time{}) }()
	var seen strings.Builder
	for {
		line, err := s.br.ReadString('\n')
		seen.WriteString(line)
		if err != nil {
			t.Fatalf("the stream did not say %q: %v\n%s", want, err, seen.String())
		}
		if strings.TrimRight(line, "\r\n") == want {
			return seen.String()
		}
	}
}

// TestLiveStreamEndsWithItsSession: a stream ends when its session does
// (its expiry, as read when the stream opened), saying to sign in again,
// where it used to go on for up to 45 s more.
func TestLiveStreamEndsWithItsSession(t *testing.T) {
	t.Parallel()
	b := setup(t)
	_, _, roomID, _, _ := b.askedBeta("Session ends", 3)
	cookie := b.sessionOf(b.bob)
	if _, err := b.pool.Exec(b.ctx, `UPDATE user_sessions SET expires_at = now() + interval '2 seconds', last_seen_at = now()
		WHERE user_id = $1`, b.bob.ID); err != nil {
		t.Fatal(err)
	}
	s := b.openLiveWith(t, cookie, fmt.Sprintf("/rooms/%d/events", roomID))
	if said := until(t, s, "0"); !strings.Contains(said, `"why":"`+goneSignedOut+`"`) || !strings.Contains(said, "/login?next=%2Frooms%2F") {
		t.Errorf("the stream ended without saying to sign in again:\n%s", said)
	}
}

// TestBrowserPageSaysAccessWasLost: Carol's room page, in German, when
// she is removed from the account: it stops updating, hides the room and
// says why in her language, with a link to her rooms.
func TestBrowserPageSaysAccessWasLost(t *testing.T) {
	b := setup(t)
	br := newBrowser(t, b)
	_, _, roomID, _, _ := b.askedBeta("Removed while reading", 3)
	if err := b.accounts.AddMemberAsOperator(b.ctx, "alpha", b.carol.Email, app.MemberRoleAdmin); err != nil {
		t.Fatal(err)
	}
	tab := br.tabIn("de")
	br.signIn(tab, b.carol.Email)
	br.do(tab, "open the room", chromedp.Navigate(fmt.Sprintf("%s/rooms/%d", b.base, roomID)),
		chromedp.WaitVisible(chromedp.CSS(`#room-live`)))
	br.until(tab, "the page listens", `document.documentElement.dataset.live === 'open'`)
	if err := b.accounts.RemoveMember(b.ctx, b.alice.ID, "alpha", b.carol.ID); err != nil {
		t.Fatal(err)
	}
	br.until(tab, "the page says she was removed", `document.documentElement.dataset.live === 'gone'`)
	if s := br.text(tab, `[data-live-gone="removed"]`); !strings.Contains(s, "Sie können diese Seite nicht mehr sehen") || !strings.Contains(s, "Zu Ihren Räumen") {
		t.Errorf("the page says %q", s)
	}
	hidden, err := chromedp.Run(tab, chromedp.Evaluate[bool](`document.getElementById('room-live').hidden`))
	if err != nil {
		t.Fatal(err)
	}
	if !hidden {
		t.Error("the room is still shown")
	}
}

// losing arms the next access check of a stream's opening (the room's
// SeesRoom, the list's Memberships) to run lose after it: the access is
// lost between the stream's check and the rest of its opening.
type losing struct{ lose atomic.Pointer[func()] }

func (l *losing) after(err error) {
	if f := l.lose.Swap(nil); f != nil && err == nil {
		(*f)()
	}
}

type seesThenLoses struct {
	Rooms
	*losing
}

func (r seesThenLoses) SeesRoom(ctx context.Context, userID, roomID int64) error {
	err := r.Rooms.SeesRoom(ctx, userID, roomID)
	r.after(err)
	return err
}

type listsThenLoses struct {
	Accounts
	*losing
}

func (a listsThenLoses) Memberships(ctx context.Context, userID int64) ([]app.Membership, error) {
	ms, err := a.Accounts.Memberships(ctx, userID)
	a.after(err)
	return ms, err
}

// TestLiveStreamOpenedAsAccessIsLost: Carol's room stream, or her rooms
// list's, checks her access, and she is removed, heard by this process,
// before the stream has done opening. The stream ends saying so at once
// and tells her of no change. Before, it watched her access only after its
// check, missed the removal, and told her of every change of the room
// until its life ended.
func TestLiveStreamOpenedAsAccessIsLost(t *testing.T) {
	t.Parallel()
	for _, list := range []bool{false, true} {
		t.Run(fmt.Sprint("list=", list), func(t *testing.T) {
			t.Parallel()
			l := &losing{}
			b := setup(t, func(c *Config) {
				if list {
					c.Accounts = listsThenLoses{c.Accounts, l}
				} else {
					c.Rooms = seesThenLoses{c.Rooms, l}
				}
			})
			_, _, roomID, _, _ := b.askedBeta("Lost while opening", 3)
			if err := b.accounts.AddMemberAsOperator(b.ctx, "alpha", b.carol.Email, app.MemberRoleAdmin); err != nil {
				t.Fatal(err)
			}
			notify := func(room int64) {
				if _, err := b.pool.Exec(b.ctx, `SELECT pg_notify($1, $2)`, app.RoomChannel, fmt.Sprint(room)); err != nil {
					t.Fatal(err)
				}
			}
			lose := func() {
				if err := b.accounts.RemoveMember(b.ctx, b.alice.ID, "alpha", b.carol.ID); err != nil {
					t.Fatal(err)
				}
				// The listener hands notifications on in order: once a
				// room change sent after the removal is heard, so was the
				// removal.
				const sentinel = 1 << 40 // no room
				heard, stop := b.dash.hub.watchRoom(sentinel)
				defer stop()
				notify(sentinel)
				select {
				case <-heard:
				case <-time.After(10 * time.Second):
					t.Error("the listener never handed on a notification")
				}
			}
			path := fmt.Sprintf("/rooms/%d/events", roomID)
			if list {
				path = "/events"
			}
			l.lose.Store(&lose)
			carol := b.openLive(t, b.carol, path)
			notify(roomID) // committed after the removal
			said := until(t, carol, "0")
			if !strings.Contains(said, "event: gone\n") || !strings.Contains(said, `"why":"`+goneRemoved+`"`) || strings.Contains(said, "event: change") {
				t.Errorf("the stream did not end at once saying she was removed:\n%s", said)
			}
		})
	}
}
