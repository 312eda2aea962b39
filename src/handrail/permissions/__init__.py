"""Pure permission policy: rules, contexts and decisions. Knows nothing of LSP or the model."""
