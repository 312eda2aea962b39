"""The pygls server: LSP wiring, sessions, the agent loop, and the editor-backed ports."""
