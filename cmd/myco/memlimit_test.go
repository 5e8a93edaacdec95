package main

import "testing"

func TestMemoryLimit(t *testing.T) {
	tests := []struct {
		name      string
		env       string
		wantLimit int64
		wantSet   bool
	}{
		{"unset: myco's default", "", defaultMemoryLimit, true},
		{"a limit of the person's", "200MiB", 0, false},
		{"off", "off", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			limit, set := memoryLimit(func(name string) string {
				if name == "GOMEMLIMIT" {
					return tt.env
				}
				return ""
			})
			if set != tt.wantSet || (set && limit != tt.wantLimit) {
				t.Errorf("memoryLimit with GOMEMLIMIT=%q = %d, %v; want %d, %v", tt.env, limit, set, tt.wantLimit, tt.wantSet)
			}
		})
	}
}
