package app

import (
	"fmt"
	"testing"
)

// TestConsentsAtOnce: two consents to one client in one account at the
// same moment (the same person pressing Allow twice, or two people of the
// account) both go through: the same person's second consent connects the
// agent the first created, another person's gets the next free name. Each
// consent read the free names and the person's earlier grant before it
// waited for the account's row (taken for the agents' cap), or without
// waiting for anything: both took the client's name and the second was
// refused with "agent name already taken". The test holds the account's
// row while both start, so that both read before either writes.
func TestConsentsAtOnce(t *testing.T) {
	t.Parallel()
	for _, limit := range []int{0, 10} {
		t.Run(fmt.Sprintf("cap %d", limit), func(t *testing.T) {
			t.Parallel()
			rb := setupRooms(t)
			var people [2]int64
			for i, email := range []string{"bob@example.test", "carol@example.test"} {
				if err := rb.acc.AddMemberAsOperator(rb.ctx, "alpha", email, MemberRoleMember); err != nil {
					t.Fatal(err)
				}
				u, err := rb.acc.UserByEmail(rb.ctx, email)
				if err != nil {
					t.Fatal(err)
				}
				people[i] = u.ID
			}
			oauth := NewOAuth(rb.pool)
			oauth.SetAgentCap(limit)
			client, err := oauth.SaveClient(rb.ctx, OAuthClient{ID: "https://assistant.example/oauth/client.json", Kind: OAuthClientMetadataDocument,
				Name: "Assistant", RedirectURIs: []string{"https://assistant.example/callback"}})
			if err != nil {
				t.Fatal(err)
			}
			connect := func(users [2]int64) ([2]Agent, [2]error) {
				var agents [2]Agent
				next := make(chan int, 2)
				next <- 0
				next <- 1
				errs := rb.race(t, rb.a.AccountID, func() error {
					i := <-next
					var err error
					agents[i], err = oauth.Connect(rb.ctx, users[i], "alpha", client)
					return err
				})
				return agents, errs
			}

			agents, errs := connect(people)
			if errs[0] != nil || errs[1] != nil {
				t.Fatalf("two people's consents at once: %v", errs)
			}
			if agents[0].ID == agents[1].ID || agents[0].OwnerUserID != people[0] || agents[1].OwnerUserID != people[1] {
				t.Errorf("two people's consents at once: %+v", agents)
			}

			alice := rb.a.OwnerUserID
			agents, errs = connect([2]int64{alice, alice})
			if errs[0] != nil || errs[1] != nil {
				t.Fatalf("the same person's consent twice at once: %v", errs)
			}
			if agents[0].ID != agents[1].ID {
				t.Errorf("the same person's consent twice at once made two agents: %q and %q", agents[0].Name, agents[1].Name)
			}
		})
	}
}
