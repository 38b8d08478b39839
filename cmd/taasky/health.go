package main

import (
	"context"
	"errors"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/taasky/taasky/app"
)

// health answers the load balancer's probes: /healthz says the process is
// up; /readyz says it can serve (the database answers, no shutdown begun).
// In a worker-only process, which no load balancer sends to, /readyz says
// it works jobs: River runs, and the database answers.
type health struct {
	pool     *pgxpool.Pool
	log      *slog.Logger
	stopping atomic.Bool
	// jobsOnly is a worker-only process's: its readiness is River's.
	jobsOnly bool
	// working is true from River's start until it stopped (server.serve).
	working atomic.Bool
}

func (h *health) live(c *fiber.Ctx) error {
	return c.SendString("ok\n")
}

func (h *health) ready(c *fiber.Ctx) error {
	if h.stopping.Load() {
		return c.Status(fiber.StatusServiceUnavailable).SendString("shutting down\n")
	}
	if h.jobsOnly && !h.working.Load() {
		return c.Status(fiber.StatusServiceUnavailable).SendString("the job workers are not running\n")
	}
	ctx, cancel := context.WithTimeout(c.UserContext(), 2*time.Second)
	defer cancel()
	if err := h.pool.Ping(ctx); err != nil {
		h.log.WarnContext(c.UserContext(), "readyz: database ping failed", "err", err)
		reason := "database unreachable\n"
		switch {
		case errors.Is(err, context.DeadlineExceeded):
			reason = "database did not answer within 2s\n"
		case app.TooManyConnections(err):
			reason = "database refuses new connections: its max_connections are all taken (SQLSTATE 53300)\n"
		}
		return c.Status(fiber.StatusServiceUnavailable).SendString(reason)
	}
	return c.SendString("ready\n")
}
