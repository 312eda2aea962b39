"""`handrail demo`: a real session on a sample workspace, driven by a scripted model."""
