package priority

import (
	"strconv"
	"strings"
)

// A Level is how much a request matters when not every request can be
// served. Higher levels are refused last. The zero value is Critical, the
// Default.
//
// The levels are those of Google's SRE book ("Handling Overload"). A Level
// outside Sheddable..CriticalPlus counts as the nearest of them.
type Level int8

const (
	// Sheddable requests may be refused whenever the server is short of
	// capacity, and are expected to be retried later (prefetch, batch).
	Sheddable Level = -2
	// SheddablePlus requests can take partial unavailability; they go
	// before Critical ones.
	SheddablePlus Level = -1
	// Critical is the level of requests whose refusal users see.
	Critical Level = 0
	// CriticalPlus is for the most critical requests, refused last.
	CriticalPlus Level = 1
)

// Default is the level of a request whose level is not given.
const Default = Critical

// NumLevels is the number of distinct levels.
const NumLevels = 4

// Levels returns every level, lowest first, in Index order.
func Levels() [NumLevels]Level {
	return [NumLevels]Level{Sheddable, SheddablePlus, Critical, CriticalPlus}
}

// Index returns the position of l in Levels, 0 for Sheddable to
// NumLevels-1 for CriticalPlus; a level out of range gets the index of the
// nearest one. It is meant for arrays indexed by level.
func (l Level) Index() int {
	return int(min(max(l, Sheddable), CriticalPlus) - Sheddable)
}

var names = [NumLevels]string{"sheddable", "sheddable_plus", "critical", "critical_plus"}

// String returns the level's name in lower case, "sheddable" to
// "critical_plus", or "Level(n)" for a level out of range.
func (l Level) String() string {
	if l < Sheddable || l > CriticalPlus {
		return "Level(" + strconv.Itoa(int(l)) + ")"
	}
	return names[l.Index()]
}

// Parse returns the level named s. Case is ignored and "-" may stand for
// "_": "SHEDDABLE_PLUS", "sheddable-plus" and "Sheddable_Plus" are all
// SheddablePlus. It reports false, with Default, for any other string.
// It allocates nothing.
func Parse(s string) (Level, bool) {
	if len(s) > len("sheddable_plus") {
		return Default, false
	}
	var b [len("sheddable_plus")]byte
	n := copy(b[:], s)
	for i := range n {
		if b[i] == '-' {
			b[i] = '_'
		}
	}
	for i, name := range names {
		if strings.EqualFold(string(b[:n]), name) {
			return Sheddable + Level(i), true
		}
	}
	return Default, false
}
