package jobs

import "time"

// FetchCooldown is the least time between two fetches of a process's job
// queue (River's Config.FetchCooldown). River fetches when an insert is
// announced, but at most once per cooldown, so under a steady stream of
// confirmations a job waits up to the cooldown before any worker sees it.
// River's default, 100 ms, also capped one process at about 20 jobs per
// fetch × 10 fetches a second: in `taasky bench` at 8 clients the emails
// took 117 ms (p50) to reach SMTP and held the whole run at 381 moves/s
// with the CPU 45 % idle. At 10 ms: 32 ms, and 627–686 moves/s with the
// CPU saturated (docs/performance.md). A fetch costs PostgreSQL about a
// millisecond, and happens only when jobs were inserted (or at the 1-s
// poll), so an idle process does not fetch more often.
const FetchCooldown = 10 * time.Millisecond
