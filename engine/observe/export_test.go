package observe

// FastParse exposes the fast tree builder to the differential tests.
var FastParse = fastParse
