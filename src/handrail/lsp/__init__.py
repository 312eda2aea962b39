"""The language server: the only package that speaks LSP (pygls, lsprotocol). It answers the editor, keeps
its documents, and implements the editor ports the agent (`handrail.agent`) asks through."""
