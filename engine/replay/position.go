package replay

// Position is the index of the next recorded step the replay will consume:
// the steps before it have been replayed. The HTML report uses it to tie
// each scenario step to the captures the engine read during it.
func (d *Driver) Position() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.pos
}

// Len is the number of steps recorded so far.
func (r *Recorder) Len() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.s.Steps)
}
