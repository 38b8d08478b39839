package jobs

import "github.com/riverqueue/river"

// QueueOutbound is the queue of the jobs that call a URL a user chose: a
// push to a browser's push service (PushArgs) and a webhook (WebhookArgs).
// Such a URL may take its time to answer (a push waits up to 15 s, a
// webhook 10 s), and whoever chose it may make many: a person with 20
// devices on an address that never answers, pressing "Send a test" ten
// times, held every worker of the one queue for minutes, and every
// tenant's confirmation mail and the sweep (deadlines, reminders) waited
// behind them. In a queue of their own they wait only for each other.
const QueueOutbound = "outbound"

// Queues are the queues a working process works: River's default (mails,
// the sweep, purges) with workers at once, and QueueOutbound with outbound.
func Queues(workers, outbound int) map[string]river.QueueConfig {
	return map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: workers}, QueueOutbound: {MaxWorkers: outbound}}
}
