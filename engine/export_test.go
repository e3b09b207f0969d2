package engine

// MonitorObservation exposes the engine's observation → monitor mapping to
// the external tests' benchmark.
var MonitorObservation = monitorObservation
