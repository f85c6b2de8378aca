package main

import "net/http"

// frontdoor returns the frontdoor variant of c's scenario.
func frontdoor(c serverConfig, h http.Handler) http.Handler {
	return frontdoorCPU(c, h)
}
