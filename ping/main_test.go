package ping_test

import (
	"testing"

	"github.com/frontdoor-go/frontdoor/internal/leaktest"
)

func TestMain(m *testing.M) { leaktest.VerifyTestMain(m) }
