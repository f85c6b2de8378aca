package main

import "testing"

func TestSize(t *testing.T) {
	tests := []struct {
		name                  string
		cores, renders, queue int
		limit                 int64
		want                  sizing
	}{
		{"defaults, 2 cores", 2, 0, 0, 0, sizing{renders: 3, queue: 24, limit: 54, procs: 4}},
		{"defaults, 1 core", 1, 0, 0, 0, sizing{renders: 2, queue: 16, limit: 36, procs: 3}},
		{"one render, no queue", 2, 1, -1, 0, sizing{renders: 1, queue: 0, limit: 2, procs: 2}},
		{"one render on 1 core gets a spare P", 1, 1, 2, 4, sizing{renders: 1, queue: 2, limit: 4, procs: 2}},
		{"renders above cores raise GOMAXPROCS", 4, 8, 1, 100, sizing{renders: 8, queue: 1, limit: 100, procs: 9}},
		{"more cores than renders keep GOMAXPROCS", 8, 2, 4, 0, sizing{renders: 2, queue: 4, limit: 12, procs: 8}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := size(tt.cores, tt.renders, tt.queue, tt.limit)
			if err != nil || got != tt.want {
				t.Errorf("size(%d, %d, %d, %d) = %+v, %v, want %+v", tt.cores, tt.renders, tt.queue, tt.limit, got, err, tt.want)
			}
			if got.procs < got.renders+1 {
				t.Errorf("GOMAXPROCS %d < renders %d + 1", got.procs, got.renders)
			}
		})
	}
	for _, bad := range [][3]int{{0, 1, 1}, {2, -1, 0}, {2, 1, -1}} {
		if _, err := size(bad[0], bad[1], 0, int64(bad[2])); err == nil {
			t.Errorf("size(%d, %d, 0, %d) = nil error, want an error", bad[0], bad[1], bad[2])
		}
	}
}
