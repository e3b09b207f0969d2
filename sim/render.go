package sim

// RenderTurn renders one turn in a markup style exactly as the chat page
// shows it; generating adds the signals of an answer still being written
// (aria-busy, a typing indicator, Stop generating). For offline fixtures
// and the explorer's generated pages (package explore), which build their
// pages from the same markup the live sim serves.
func RenderTurn(style string, t Turn, generating bool) string {
	return renderTurn(style, t, generating)
}
