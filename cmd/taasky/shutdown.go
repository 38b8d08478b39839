package main

import "time"

// drainGrace waits SHUTDOWN_GRACE with the listener still open and /readyz
// answering 503, so that a load balancer probing it takes this process out
// of its pool before the listener closes: requests keep being served
// meanwhile, and none meets a refused connection or a reset.
func (s *server) drainGrace() {
	if s.cfg.ShutdownGrace <= 0 {
		return
	}
	s.log.Info("readyz answers 503; the listener closes after the grace", "grace", s.cfg.ShutdownGrace.String())
	time.Sleep(s.cfg.ShutdownGrace)
}
