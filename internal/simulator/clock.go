package simulator

import (
	"context"
	"time"
)

// clock maps backend ("virtual") time onto wall-clock time. Virtual time runs
// Speed times faster than real time, so a backend duration d takes d/Speed of
// real time. All model timestamps (heartbeats, "online since", task dates) are
// virtual, which lets the monitor compare them with the backend's own
// constants (30 s, 120 s, 300 s...) directly.
type clock struct {
	speed float64
	start time.Time
}

func newClock(speed float64) clock {
	if speed <= 0 {
		speed = 1
	}
	return clock{speed: speed, start: time.Now()}
}

// now returns the current virtual time.
func (c clock) now() time.Time {
	return c.start.Add(time.Duration(float64(time.Since(c.start)) * c.speed))
}

// real converts a backend duration into the wall-clock duration it takes.
func (c clock) real(d time.Duration) time.Duration {
	return time.Duration(float64(d) / c.speed)
}

// sleep waits for the backend duration d. It returns false when ctx ends
// first, which background work treats as "stop now".
func (c clock) sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(c.real(d))
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
