package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"unicode/utf8"

	"golang.org/x/term"
)

// out is the demo's standard output. Everything the demo prints goes
// through it, so that on a terminal the live table can be redrawn in place.
var out = newConsole(os.Stdout)

// A console prints step lines and the live table. On a terminal a table
// replaces the one drawn just before it (the cursor moves up over it and
// the screen is cleared below); anything else printed in between ends that
// table, and the next one starts below. Elsewhere (a pipe, a file) every
// table is printed anew. Write errors are ignored: once the terminal is
// gone the demo still has to clean up.
type console struct {
	w   io.Writer
	fd  int
	tty bool
	// drawn is how many terminal rows the last table took, 0 when
	// something else was printed after it (or nothing was drawn yet).
	drawn int
}

func newConsole(f *os.File) *console {
	fd := int(f.Fd()) //nolint:gosec // a file descriptor fits an int
	return &console{w: f, fd: fd, tty: term.IsTerminal(fd)}
}

// Printf prints text other than a table.
func (c *console) Printf(format string, args ...any) {
	c.drawn = 0
	_, _ = fmt.Fprintf(c.w, format, args...)
}

// Println prints text other than a table.
func (c *console) Println(args ...any) {
	c.drawn = 0
	_, _ = fmt.Fprintln(c.w, args...)
}

// Table prints block (lines ending in a newline), over the previous table
// when that was the last thing printed on a terminal.
func (c *console) Table(block string) {
	if c.drawn > 0 {
		_, _ = fmt.Fprintf(c.w, "\x1b[%dA\x1b[J", c.drawn)
	}
	_, _ = io.WriteString(c.w, block)
	if c.tty {
		c.drawn = c.rows(block)
	}
}

// rows is how many terminal rows block takes: a line wider than the
// terminal wraps onto more than one.
func (c *console) rows(block string) int {
	width, _, err := term.GetSize(c.fd)
	if err != nil || width <= 0 {
		width = 1 << 30
	}
	n := 0
	for _, line := range strings.Split(strings.TrimSuffix(block, "\n"), "\n") {
		n += max(1, (utf8.RuneCountInString(line)+width-1)/width)
	}
	return n
}

// apiWarnings prints each warning of the API server (a deprecated API
// version, say) once, as a line of the demo's output.
type apiWarnings struct {
	mu   sync.Mutex
	seen map[string]bool
}

// HandleWarningHeader implements rest.WarningHandler.
func (w *apiWarnings) HandleWarningHeader(code int, _, message string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if code != 299 || message == "" || w.seen[message] {
		return
	}
	if w.seen == nil {
		w.seen = map[string]bool{}
	}
	w.seen[message] = true
	out.Printf("    warning: %s\n", message)
}
