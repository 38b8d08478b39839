package jobs

import "time"

// FetchCooldown is the least time between two fetches of a process's job
// queue (River's Config.FetchCooldown). River fetches when an insert is
// announced (inserting clients announce at most once per cooldown, the
// 1-s poll catches the rest), when a worker frees up after a full fetch,
// and at the poll, but at most once per cooldown: under a steady stream of
// confirmations a job waits up to the cooldown before any worker sees it.
// River's default, 100 ms, also held one process to about 20 jobs per fetch
// × 10 fetches a second: in `taasky bench` at 8 clients the emails took
// 117–128 ms (p50) to reach SMTP, and the run stayed at 381 moves/s with
// the CPU 45 % idle. At 10 ms: 32–34 ms and 630–677 moves/s, the CPU
// saturated (docs/performance-history.md, session 5). A fetch costs PostgreSQL
// about 0.2–0.35 ms, and an idle process fetches no more often than before.
const FetchCooldown = 10 * time.Millisecond
